"""The browser path: headless Chromium, its guarded proxy and its network namespace."""
