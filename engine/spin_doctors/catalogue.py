"""The catalogue of The Spin Doctors: its content as typed public data (built by the codec), with the
content version (any edit changes it) and the rules version that games record at creation."""

from __future__ import annotations

from hustings.engine.base import Catalogue
from hustings.engine.spin_doctors.codec import catalogue_to_proto
from hustings.engine.spin_doctors.content import CONTENT_VERSION, RULES_VERSION
from hustings.engine.spin_doctors.game import INFO

CATALOGUE = Catalogue(INFO.kind, CONTENT_VERSION, catalogue_to_proto, RULES_VERSION)
"""The catalogue of The Spin Doctors, found by the registry."""
