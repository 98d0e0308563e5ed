"""GitHub's REST API: the one client, and issues that follow the report (plan, bodies)."""
