"""Sources as they were for each claim: baselines, blame and citations."""
