"""Content versions: a game is played by the content it was created with. A build plays one
content version per kind; a game recorded with another is refused with a clear error, never
continued with changed cards."""

from __future__ import annotations

import pytest

from hustings.engine import games
from hustings.engine.base import ContentVersionError
from hustings.engine.errors import EngineError
from hustings.engine.registry import check_content_version, get_catalogue


@pytest.mark.parametrize("kind", sorted(games()))
def test_the_current_version_plays(kind: str) -> None:
    catalogue = get_catalogue(kind)
    assert catalogue is not None
    check_content_version(kind, catalogue.content_version)
    check_content_version(kind, "")  # recorded before versions existed: plays on


@pytest.mark.parametrize("kind", sorted(games()))
def test_another_version_is_refused(kind: str) -> None:
    catalogue = get_catalogue(kind)
    assert catalogue is not None
    with pytest.raises(ContentVersionError) as caught:
        check_content_version(kind, "0123456789abcdef")
    assert (caught.value.kind, caught.value.recorded, caught.value.current) == (kind, "0123456789abcdef", catalogue.content_version)
    assert isinstance(caught.value, EngineError) and caught.value.reason == "CONTENT_VERSION_RETIRED"
    assert "0123456789abcdef" in str(caught.value) and catalogue.content_version in str(caught.value)


def test_versions_differ_between_kinds() -> None:
    versions = [get_catalogue(kind).content_version for kind in games()]  # type: ignore[union-attr]
    assert len(set(versions)) == len(versions)
