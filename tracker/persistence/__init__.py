"""Saves: TOML codec, atomic writes, the sidecar lock, and watching for changes."""
