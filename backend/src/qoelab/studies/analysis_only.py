"""The design of an analysis-only study is the data's (issue 32): the one place that refuses
changing it.

A study imported from a dataset (``Study.analysis_only``, :mod:`qoelab.datasets`) holds what
its ratings were collected under: the games with their pace, the conditions as scenarios,
the rating items with their scale and acceptance, the questionnaire (the context and the
per-rater answers). Changing any of them would relabel the imported ratings, and a study
that is never run at a station (:func:`qoelab.runs.services.creation.analysis_only_refusal`)
has no use for a runnable design. So every write of its design is refused with **409**
``{"detail": "… cannot be changed (this study was imported from a dataset and is
analysis-only: its design is the data's)"}``:

* games and scenarios: creating, changing, deleting (:class:`~qoelab.studies.access.
  StudyDesignPermission` for an existing row, the views' study check for a new one);
* the design generator, its preview included (it drafts a runnable design);
* the study's settings (:data:`~qoelab.studies.models.STUDY_SETTINGS`) but its
  description — a value sent as the study shows it changes nothing and passes, so a client
  may send the whole study back;
* a study document loaded onto it (``manage.py load_study`` with its slug; the API's
  ``import-design`` never touches an existing study).

As for any study: reading, exporting, analysing, its slug, title and description, deleting
(the study's own rules) and cloning (:mod:`qoelab.studies.cloning`: a runnable copy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from qoelab.core.errors import Conflict
from qoelab.studies.models import STUDY_SETTINGS, Game, Scenario, Study

RULE = "this study was imported from a dataset and is analysis-only: its design is the data's"
#: The settings an analysis-only study keeps as imported (all but its description).
LOCKED_SETTINGS: tuple[str, ...] = tuple(s for s in STUDY_SETTINGS if s != "description")


class AnalysisOnlyDesign(Conflict):
    """409: a write of an analysis-only study's design; the message names the rule."""

    def __init__(self, what: str) -> None:
        super().__init__(design_refusal(what))


def design_refusal(what: str) -> str:
    """The one-line refusal of changing ``what`` (e.g. "its games")."""
    return f"{what} cannot be changed ({RULE})"


def check_design_change(study: Study, what: str) -> None:
    """Refuse (409) a change of ``what`` of ``study`` when it is analysis-only."""
    if study.analysis_only:
        raise AnalysisOnlyDesign(what)


def check_object_write(obj: Study | Game | Scenario, action: str | None) -> None:
    """A write to an existing game or scenario, or the study's design generator (the
    permission's part; the study's settings: :func:`check_settings_change`; deleting the
    study follows the study's own rules)."""
    if isinstance(obj, Game):
        check_design_change(obj.study, "its games")
    elif isinstance(obj, Scenario):
        check_design_change(obj.study, "its scenarios")
    elif action == "design":
        check_design_change(obj, "its scenarios")


def check_settings_change(study: Study, data: object, shown: Callable[[str], Any]) -> None:
    """Refuse a change of a locked setting: a key of ``data`` (the request's body) whose
    value is not the one the study shows (``shown(name)``, the API's representation)."""
    if not study.analysis_only or not isinstance(data, Mapping):
        return  # a body that is no object: the serializer refuses it (400)
    changed = [name for name in LOCKED_SETTINGS if name in data and data[name] != shown(name)]
    if changed:
        raise AnalysisOnlyDesign(f"its {', '.join(changed)}")
