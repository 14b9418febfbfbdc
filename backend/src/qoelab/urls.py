"""URL map: API under /api/v1/, schema and docs, admin, health, and the frontend app."""

from typing import Any

from django.contrib import admin
from django.urls import include, path, re_path, register_converter
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from qoelab.accounts import urls as accounts_urls
from qoelab.analysis_jobs.views import AnalysisJobViewSet, StudyAnalysisView
from qoelab.core.api import ID_PATTERN, IdConverter
from qoelab.core.views import frontend_app, healthz
from qoelab.datasets import urls as dataset_urls
from qoelab.datasets.views import DatasetJobViewSet
from qoelab.exports.views import (
    ExportCsvView,
    ExportItemsView,
    ExportJsonView,
    ExportSurealView,
    ImportCsvView,
    ImportJobViewSet,
)
from qoelab.participants.views import ParticipantViewSet
from qoelab.participants.withdrawal_views import StudyWithdrawalsView
from qoelab.policies.views import StudyPolicyExportView, StudyPolicyView
from qoelab.ratings.views import RatingViewSet
from qoelab.runs.preview_view import StudyPreviewView
from qoelab.runs.views import ParticipantSessionViewSet, SessionViewSet
from qoelab.stations.views import StationViewSet
from qoelab.steering.views import SteeringServiceViewSet
from qoelab.studies.views import (
    FactorsView,
    GameViewSet,
    RatingPresetsView,
    ScenarioViewSet,
    StudyViewSet,
)

register_converter(IdConverter, "id")

# Errors raised outside views: JSON under /api/, Django's pages elsewhere.
handler400 = "qoelab.core.api_errors.bad_request"
handler403 = "qoelab.core.api_errors.permission_denied"
handler404 = "qoelab.core.api_errors.page_not_found"
handler500 = "qoelab.core.api_errors.server_error"


class Router(DefaultRouter):
    """Every detail route takes a numeric id (a huge or non-numeric one is a plain 404)."""

    def get_lookup_regex(self, viewset: Any, lookup_prefix: str = "") -> str:
        return f"(?P<{lookup_prefix}pk>{ID_PATTERN})"


router = Router()
router.register("studies", StudyViewSet, basename="study")
router.register("games", GameViewSet, basename="game")
router.register("scenarios", ScenarioViewSet, basename="scenario")
router.register("stations", StationViewSet, basename="station")
router.register("steering-services", SteeringServiceViewSet, basename="steering-service")
router.register("participants", ParticipantViewSet, basename="participant")
router.register("sessions", SessionViewSet, basename="session")
router.register("ratings", RatingViewSet, basename="rating")
router.register("analysis-jobs", AnalysisJobViewSet, basename="analysis-job")
router.register("import-jobs", ImportJobViewSet, basename="import-job")
router.register("dataset-jobs", DatasetJobViewSet, basename="dataset-job")
router.register("participant/sessions", ParticipantSessionViewSet, basename="participant-session")

study_data = [
    path("factors/", FactorsView.as_view(), name="factors"),
    path("rating-presets/", RatingPresetsView.as_view(), name="rating-presets"),
    path("studies/<id:pk>/export/items/", ExportItemsView.as_view(), name="study-export-items"),
    path("studies/<id:pk>/export/csv/", ExportCsvView.as_view(), name="study-export-csv"),
    path("studies/<id:pk>/export/json/", ExportJsonView.as_view(), name="study-export-json"),
    path("studies/<id:pk>/export/sureal/", ExportSurealView.as_view(), name="study-export-sureal"),
    path("studies/<id:pk>/import/", ImportCsvView.as_view(), name="study-import"),
    path("studies/<id:pk>/analysis/", StudyAnalysisView.as_view(), name="study-analysis"),
    path("studies/<id:pk>/policy/", StudyPolicyView.as_view(), name="study-policy"),
    path("studies/<id:pk>/preview/", StudyPreviewView.as_view(), name="study-preview"),
    path("studies/<id:pk>/withdrawals/", StudyWithdrawalsView.as_view(), name="study-withdrawals"),
    path(
        "studies/<id:pk>/policy/<slug:export_format>/",
        StudyPolicyExportView.as_view(),
        name="study-policy-format",
    ),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/auth/", include(accounts_urls)),
    path("api/v1/", include(study_data)),
    path("api/v1/", include(dataset_urls)),
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
    # Everything else that is not an API, admin or static path is a client-side route.
    re_path(r"^(?!api/|admin/|static/|healthz).*$", frontend_app, name="frontend"),
]
