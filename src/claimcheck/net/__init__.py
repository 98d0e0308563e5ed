"""HTTP only: fetching, the retry policy, the address guard, decoding, body endings."""
