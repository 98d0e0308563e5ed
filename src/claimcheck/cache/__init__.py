"""Derived and disposable: pages read once, verdicts and answers kept between runs."""
