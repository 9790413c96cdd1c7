"""Benchmarks: `./dev bench` (or `python -m bench [--quick] [names...]`) prints one table of ratios."""
