"""The bounded map of recent values the codecs' and views' caches keep."""

from services.games.common.recent import Recent


def test_a_value_is_read_from_either_generation_until_two_more_fill_up() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.put("a", 1)
    recent.put("b", 2)
    recent.put("c", 3)  # the newer was full: it became the older
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == (1, 2, 3)
    recent.put("d", 4)
    recent.put("e", 5)  # full again: the older, "a" and "b", is dropped whole
    assert (recent.get("a"), recent.get("b")) == (None, None)
    assert (recent.get("c"), recent.get("d"), recent.get("e")) == (3, 4, 5)
    assert recent.get("never") is None
