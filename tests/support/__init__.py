"""What the tests share: local HTTP servers, a fake GitHub, corpus replays, result builders."""
