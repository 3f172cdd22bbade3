"""Subcommand groups of the ``ragunc`` CLI (see ragunc/cli.py)."""
