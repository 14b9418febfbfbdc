"""Django settings for QoE Lab, read from the environment (see docs/deployment.md).

Variables: QOELAB_ENV (development | production), DJANGO_SECRET_KEY, DJANGO_DEBUG,
DJANGO_ALLOWED_HOSTS, DATABASE_URL, CELERY_BROKER_URL, CELERY_RESULT_BACKEND,
QOELAB_DATA_DIR, QOELAB_FRONTEND_DIST.
"""

from __future__ import annotations

import os
from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from qoelab.config import database_config, env_bool, env_list

# Lets Django's generic classes be subscripted at run time, as their type stubs declare.
django_stubs_ext.monkeypatch()

BACKEND_DIR = Path(__file__).resolve().parents[2]
REPO_DIR = BACKEND_DIR.parent
DATA_DIR = Path(os.environ.get("QOELAB_DATA_DIR", REPO_DIR / "var"))
FIXTURES_DIR = REPO_DIR / "fixtures"
FRONTEND_DIST = Path(os.environ.get("QOELAB_FRONTEND_DIST", REPO_DIR / "frontend" / "dist"))

QOELAB_ENV = os.environ.get("QOELAB_ENV", "development").strip().lower()
if QOELAB_ENV not in {"development", "production"}:
    raise ImproperlyConfigured(
        f"QOELAB_ENV={QOELAB_ENV!r} is not valid; use 'development' or 'production'."
    )
IS_PRODUCTION = QOELAB_ENV == "production"

DEBUG = env_bool("DJANGO_DEBUG", default=not IS_PRODUCTION)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if IS_PRODUCTION:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set; production mode refuses to start without one."
        )
    SECRET_KEY = "development-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", [] if IS_PRODUCTION else ["127.0.0.1", "localhost", "[::1]"]
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "qoelab.core",
    "qoelab.studies",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "qoelab.urls"
WSGI_APPLICATION = "qoelab.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": database_config(DATA_DIR / "qoelab.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
# The Vite build is emitted with base '/static/', so its files are served as static files;
# the app shell (index.html) is served by qoelab.core.views.frontend_app.
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.is_dir() else []
WHITENOISE_USE_FINDERS = not IS_PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "QoE Lab API",
    "DESCRIPTION": (
        "Subjective QoE studies of cloud gaming: studies, games, scenarios (per-direction "
        "delay, jitter and loss), and — as they land — stations, sessions and ratings."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: with no broker configured, tasks run in-process (eagerly), which is what
# `make demo` uses; CI and labs point CELERY_BROKER_URL at Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip()
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "").strip() or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("QOELAB_LOG_LEVEL", "INFO")},
}
