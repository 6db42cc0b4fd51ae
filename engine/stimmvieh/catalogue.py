"""Stimmvieh's catalogue: its content as typed public data (built by the codec), with the
content version (any edit changes it) and the rules version that games record at creation."""

from __future__ import annotations

from hustings.engine.base import Catalogue
from hustings.engine.stimmvieh.codec import catalogue_to_proto
from hustings.engine.stimmvieh.content import CONTENT_VERSION, RULES_VERSION
from hustings.engine.stimmvieh.game import INFO

CATALOGUE = Catalogue(INFO.kind, CONTENT_VERSION, catalogue_to_proto, RULES_VERSION)
"""Stimmvieh's catalogue, found by the registry."""
