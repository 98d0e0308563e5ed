"""claimcheck: keep published claims honest against their sources."""
