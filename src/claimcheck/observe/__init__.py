"""Observing sources: what is known of each claim's source now, fetched and kept or stored.

`stored` reads the store alone (an offline run, lint, accept); `online` fetches: `fetch`
runs the requests and takes each answer as it arrives, `keep` weighs an answer with the
plausibility gate and stores it, `rendering` reads the sources a browser must render,
`renames` follows renamed repositories; `known` records what a run found of each source
and rebuilds the judge's input from that record. The online half is imported only by
what goes online, so an offline run loads no HTTP client.
"""
