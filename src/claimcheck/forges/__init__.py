"""Forges: each host's adapter, resolving a URL, forge history, the Hub's cards, docs versions."""
