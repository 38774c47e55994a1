"""The Textual UI: a thin layer over `tracker.play.session.Session`.

Nothing here changes an encounter except through Session methods, and nothing in the
engine, the rulesets or persistence imports this package.
"""
