"""Sage's core helpers, vendored as a directory (see core/flag_parser)."""
