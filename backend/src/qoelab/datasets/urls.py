"""The dataset import's URLs (included under /api/v1/ by qoelab.urls)."""

from django.urls import path

from qoelab.datasets.views import DescribeView, ImportDatasetView

urlpatterns = [
    path("datasets/describe/", DescribeView.as_view(), name="dataset-describe"),
    path("datasets/import/", ImportDatasetView.as_view(), name="dataset-import"),
]
