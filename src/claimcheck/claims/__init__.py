"""Claim files: parse them (file:line on every error), read text fragments, edit in place, lint."""
