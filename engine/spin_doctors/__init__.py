"""The Spin Doctors: place your Staff, win the Debate, the Poll and the Election.

The package registers ``GAME`` on import. Content (board, cards, Staffers, Actions) lives in
``content.json``; ``CONTENT.md`` records every value and rule choice the rulebook leaves open.
"""

from hustings.engine.registry import register
from hustings.engine.spin_doctors.game import GAME, SpinDoctorsGame
from hustings.engine.spin_doctors.model import SpinDoctorsOptions, State

register(GAME)

__all__ = ["GAME", "SpinDoctorsGame", "SpinDoctorsOptions", "State"]
