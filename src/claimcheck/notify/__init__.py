"""Notifications of claims whose state changed, through Apprise: `plan` (who is told of
which transition, pure), `message` (each route's title and Markdown body, pure), `run`
(the state's records, the routes' URLs, sending) and `deliver` (Apprise itself,
imported only when a message is sent)."""
