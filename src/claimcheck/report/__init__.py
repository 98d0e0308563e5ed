"""From results to a report: counts and exit codes, the output formats, saved reports read back."""
