"""Forges: the hosts whose files are read through their API, one module per host.

`github`, `huggingface` (the Hub's cards), `gitlab` and `forgejo` each hold all about
their host: its URL forms, requests, file history and permalinks. They implement the
interface in `forge` and are listed in `registry`, which everything outside asks;
`hosted` is what GitLab and Forgejo share, `api` the requests and the one commit-page
walker. `wayback` is the Wayback Machine, which stands in for a web page's history, and
`history` the run's reader over all of them. `resolve` turns any URL into what is
fetched and where its snapshots live; `docs_versions` reads pinned documentation
versions.
"""
