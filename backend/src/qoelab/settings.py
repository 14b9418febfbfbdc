"""Django settings for QoE Lab, read from the environment (see docs/deployment.md).

Variables: QOELAB_ENV (development | production), DJANGO_SECRET_KEY, DJANGO_DEBUG,
DJANGO_ALLOWED_HOSTS, DATABASE_URL, CELERY_BROKER_URL, CELERY_RESULT_BACKEND,
QOELAB_CACHE_URL, QOELAB_TRUSTED_PROXIES, QOELAB_HEALTH_WORKER_CACHE_SECONDS, QOELAB_HEALTH_TOKEN,
QOELAB_DATA_DIR, QOELAB_FRONTEND_DIST, QOELAB_MAX_SCENARIOS, QOELAB_MAX_IMPORTED_CONDITIONS,
QOELAB_IMPORT_MAX_BYTES, QOELAB_IMPORT_MAX_ROWS, QOELAB_IMPORT_MAX_COLUMNS,
QOELAB_IMPORT_MAX_LINE_BYTES, QOELAB_IMPORT_MAX_CELL_BYTES.
"""

from __future__ import annotations

import os
from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from qoelab import __version__
from qoelab.celery import beat_schedule, check_visibility_timeout, queue_settings
from qoelab.config import database_config, env_bool, env_int, env_list, redact_url
from qoelab.core.client_address import parse_trusted_proxies
from qoelab.core.health_access import parse_health_token
from qoelab.json_logs import JsonLogFormatter

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
if IS_PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "DJANGO_ALLOWED_HOSTS is not set; production mode refuses to start without the host "
        "names it serves (e.g. DJANGO_ALLOWED_HOSTS=qoelab.lab.example)."
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
    "qoelab.accounts",
    "qoelab.stations",
    "qoelab.participants",
    "qoelab.runs",
    "qoelab.ratings",
    "qoelab.exports",
    "qoelab.analysis_jobs",
    "qoelab.datasets",
    "qoelab.steering",
]

MIDDLEWARE = [
    # First, so that it sees every response, the other middlewares' (and errors') included.
    "qoelab.core.security_headers.SecurityHeadersMiddleware",
    # Every response gets X-Request-ID; errors under /api/ are JSON (docs/api.md).
    "qoelab.core.api_errors.ApiErrorMiddleware",
    "qoelab.core.header_checks.HeaderCheckMiddleware",  # control characters in headers: 400
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

REST_FRAMEWORK: dict[str, object] = {
    # drf-spectacular's, plus the error answers every operation can give (docs/api.md).
    "DEFAULT_SCHEMA_CLASS": "qoelab.core.schema.ErrorDocumentingAutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The browser app logs in through Django's session (CSRF-protected); scripts and
        # tools may use HTTP basic auth over TLS instead. Both check passwords through
        # ThrottledModelBackend: a full bucket is 429 with Retry-After, before any hashing.
        "rest_framework.authentication.SessionAuthentication",
        # RFC 7617 basic auth: a malformed header (control character, not base64) is 400.
        "qoelab.accounts.basic_auth.StrictBasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # Service errors (qoelab.core.errors) become JSON responses here, not in every view.
    "EXCEPTION_HANDLER": "qoelab.core.api.exception_handler",
    # Bodies bounded in size (DATA_UPLOAD_MAX_MEMORY_SIZE → 413) and JSON in nesting depth.
    "DEFAULT_PARSER_CLASSES": [
        "qoelab.core.parsers.LimitedJSONParser",
        "qoelab.core.parsers.LimitedFormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}

# Request bodies: at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes (Django's default, 2.5 MiB;
# the CSV import has its own limit) and JSON nested at most QOELAB_JSON_MAX_DEPTH levels.
QOELAB_JSON_MAX_DEPTH = env_int("QOELAB_JSON_MAX_DEPTH", 32, minimum=2, maximum=500)

# Every password check (JSON login, HTTP basic auth, admin) goes through this backend, which
# limits guessing per client address and per user name (qoelab.accounts.throttles, issue 34).
AUTHENTICATION_BACKENDS = ["qoelab.accounts.backends.ThrottledModelBackend"]
# Only failures count, per address and per (user name, address); no lock per user name but a
# growing delay that spares clean and known addresses (qoelab.accounts.name_delay).
QOELAB_AUTH_RATES = {"address": "10/minute", "username_address": "20/hour"}
QOELAB_AUTH_DELAY = dict(after_failures=5, cap_s=300, memory_s=3600, known_address_s=30 * 86400)

# The cache holds the guessing limits' counters, which every gunicorn worker must share:
# QOELAB_CACHE_URL (redis://…, its own database — never the broker's, which a cache clear
# would wipe). Production refuses to start without it (below); in development a missing
# one means each process counts on its own.
CACHE_URL = os.environ.get("QOELAB_CACHE_URL", "").strip()
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"QOELAB_CACHE_URL={redact_url(CACHE_URL)!r} is not a Redis URL (redis://, rediss:// "
        "or unix://)."
    )
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "qoelab-cache",
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Reverse proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated;
# empty by default: the client is REMOTE_ADDR). Behind nginx on the same host: 127.0.0.1.
# See qoelab.core.client_address and docs/deploy.md ("Reverse proxy and client addresses").
QOELAB_TRUSTED_PROXIES = parse_trusted_proxies(os.environ.get("QOELAB_TRUSTED_PROXIES", ""))
if os.environ.get("DJANGO_NUM_PROXIES", "").strip():
    raise ImproperlyConfigured(
        "DJANGO_NUM_PROXIES is no longer read: list the proxies' addresses in "
        "QOELAB_TRUSTED_PROXIES instead (e.g. QOELAB_TRUSTED_PROXIES=127.0.0.1 behind nginx on "
        "the same host)."
    )

SPECTACULAR_SETTINGS = {
    "TITLE": "QoE Lab API",
    "DESCRIPTION": (
        "Subjective QoE studies of cloud gaming: studies, games, scenarios (per-direction "
        "delay, jitter and loss), stations with their netem agents, participants, sessions "
        "(a server-side state machine), ratings, exports/imports and analysis jobs. "
        "Researcher endpoints need a Django login (session or HTTP basic); the participant's "
        "endpoints under /api/v1/participant/ need the session's X-Participant-Token."
    ),
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "SessionStateEnum": "qoelab.runs.state_machine.State.choices",
        "AnalysisJobStateEnum": "qoelab.analysis_jobs.models.JobState.choices",
        "FactorKeyEnum": "qoelab.studies.design_generator.FACTOR_KEYS",
        "FactorDirectionEnum": "qoelab.studies.design_generator.FACTOR_DIRECTION_NAMES",
        "SessionPhaseEnum": "qoelab.runs.phases.PHASES",
        "PhaseEnum": "qoelab.studies.serializers.QUESTION_PHASES",
        "ParticipantWithdrawalEnum": "qoelab.participants.models.PARTICIPANT_WITHDRAWAL",
    },
    # The release number (qoelab.__version__): the schema, the CLI, the agent and the
    # exports report one version (deploy/tests/test_versions.py checks they agree).
    "VERSION": __version__,
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


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a positive number of seconds.")
    return value


# Worker crash safety (docs/deploy.md, "Worker crash safety"). The analysis task acknowledges
# its message only when it has finished (acks_late, see qoelab.analysis_jobs.tasks), so a
# worker that dies mid-job leaves the message unacknowledged in Redis. A live worker's
# periodic sweep (every CELERY_UNACKED_RESTORE_INTERVAL s) puts such messages back into the
# queue once they are CELERY_VISIBILITY_TIMEOUT s old, and another worker runs the job again
# from the start. The timeout must stay well above the longest task: an older message is
# delivered again even if its worker is alive and still on it (the second run then takes the
# job over and the first one stops, but the work is done twice).
# Prefetch 1: a worker holds no more messages than it has processes.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _env_seconds("CELERY_VISIBILITY_TIMEOUT", 600.0),
    "unacked_restore_interval": _env_seconds("CELERY_UNACKED_RESTORE_INTERVAL", 10.0),
    # Scan on every sweep (kombu's default scans on every 10th: ~100 s between scans).
    "unacked_restore_throttle": 1,
}

# Queues and time limits (issue 34, docs/deploy.md "Queues and time limits", qoelab.celery):
# imports and analyses on "heavy", the short tasks on the default queue; each task's soft
# limit below, its hard one QOELAB_TASK_KILL_GRACE_S later, all below the visibility timeout.
CELERY_TASK_DEFAULT_QUEUE, CELERY_TASK_QUEUES, CELERY_TASK_ROUTES = queue_settings()
QOELAB_IMPORT_TIME_LIMIT_S = _env_seconds("QOELAB_IMPORT_TIME_LIMIT_S", 300.0)
QOELAB_ANALYSIS_TIME_LIMIT_S = _env_seconds("QOELAB_ANALYSIS_TIME_LIMIT_S", 300.0)
QOELAB_UPKEEP_TIME_LIMIT_S = _env_seconds("QOELAB_UPKEEP_TIME_LIMIT_S", 60.0)
QOELAB_TASK_KILL_GRACE_S = _env_seconds("QOELAB_TASK_KILL_GRACE_S", 10.0)
check_visibility_timeout(CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"], globals())

# Periodic tasks (run `celery -A qoelab beat` next to the worker in a lab deployment):
# the heartbeat renews agent leases of running sessions even when no screen is polling,
# expire_sessions clears the impairment of sessions paused for too long.
CELERY_BEAT_SCHEDULE = beat_schedule(
    {"runs-heartbeat": ("runs.heartbeat", 10), "runs-expire-sessions": ("runs.expire_sessions", 60)}
)

# /healthz?worker=1 shares its worker probe's answer this long (one ping task at most per
# period, whoever asks; see qoelab.core.health.shared_worker_status).
QOELAB_HEALTH_WORKER_CACHE_SECONDS = env_int(
    "QOELAB_HEALTH_WORKER_CACHE_SECONDS", 10, minimum=1, maximum=3600
)
QOELAB_HEALTH_TOKEN = parse_health_token()  # /healthz details for its X-Health-Token, staff

# The netem agents: lease per applied scenario (renewed every third of it while a session
# runs), HTTP timeout, and how long a paused session keeps its impairment.
QOELAB_AGENT_LEASE_SECONDS = float(os.environ.get("QOELAB_AGENT_LEASE_SECONDS", "30"))
QOELAB_AGENT_TIMEOUT = float(os.environ.get("QOELAB_AGENT_TIMEOUT", "5"))
# Plain http:// agent URLs to other machines send the station token in clear (issue 13):
# refused in production unless the lab states an isolated cable; loopback is always allowed.
QOELAB_AGENT_ALLOW_PLAIN_HTTP = env_bool("QOELAB_AGENT_ALLOW_PLAIN_HTTP", default=not IS_PRODUCTION)
QOELAB_PAUSE_TIMEOUT_SECONDS = float(os.environ.get("QOELAB_PAUSE_TIMEOUT_SECONDS", "300"))
# A participant token (the session link) stops working this many days after its session
# ended (completed or aborted): 410 {"code": "token_expired"}. A running session's never.
QOELAB_PARTICIPANT_TOKEN_DAYS = env_int("QOELAB_PARTICIPANT_TOKEN_DAYS", 7, minimum=1, maximum=3650)

# The most scenarios a study may have (design generator, scenario editor, imported study
# documents): every participant plays each one, so a grid that multiplies out to hundreds
# is a mistake, not a study. The bound 10000 only keeps a typo from disabling the check.
QOELAB_MAX_SCENARIOS = env_int("QOELAB_MAX_SCENARIOS", 100, minimum=1, maximum=10_000)
# Conditions of a study imported from a dataset (analysis-only, never run: not the cap above).
_conditions = "QOELAB_MAX_IMPORTED_CONDITIONS"  # (lower case: not a setting)
QOELAB_MAX_IMPORTED_CONDITIONS = env_int(_conditions, 100_000, minimum=1, maximum=10_000_000)

# The ratings import's one limit (docs/api.md, "Importing ratings"): a file larger than
# QOELAB_IMPORT_MAX_BYTES is refused with 413, one with more than QOELAB_IMPORT_MAX_ROWS
# data rows with 400, both before any work starts. 100,000 rows of the full tidy export
# (every factor column) take about 19 MB, a few MB more with participant and questionnaire
# columns; the proxy's body limit (deploy/nginx, client_max_body_size) must stay above.
QOELAB_IMPORT_MAX_BYTES = env_int(
    "QOELAB_IMPORT_MAX_BYTES", 32 * 1024 * 1024, minimum=1024, maximum=1024 * 1024 * 1024
)
QOELAB_IMPORT_MAX_ROWS = env_int("QOELAB_IMPORT_MAX_ROWS", 100_000, minimum=1, maximum=10_000_000)
# The file's shape, 400 beyond, at upload and before the job's first row (issue 34,
# exports/import_shape.py): the widest export has 45 columns + 1 a question, cells ≤ 480 B.
QOELAB_IMPORT_MAX_COLUMNS = env_int("QOELAB_IMPORT_MAX_COLUMNS", 500, minimum=50, maximum=100_000)
QOELAB_IMPORT_MAX_LINE_BYTES = env_int(
    "QOELAB_IMPORT_MAX_LINE_BYTES", 64 * 1024, minimum=1024, maximum=16 * 1024 * 1024
)
QOELAB_IMPORT_MAX_CELL_BYTES = env_int(
    "QOELAB_IMPORT_MAX_CELL_BYTES", 4 * 1024, minimum=256, maximum=16 * 1024 * 1024
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "qoelab.core.api_errors.RequestIdLogFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"}
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("QOELAB_LOG_LEVEL", "INFO")},
}


# ===== PRODUCTION HARDENING (issue 8, docs/deploy.md) ======================================
# Static files may live apart from QOELAB_DATA_DIR: the container image collects them at
# build time into /app/static, outside the data volume.
STATIC_ROOT = Path(os.environ.get("QOELAB_STATIC_ROOT", STATIC_ROOT))


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


if IS_PRODUCTION:
    # TLS. Behind a proxy that terminates TLS (nginx), set DJANGO_SECURE_PROXY_SSL_HEADER=1
    # and have the proxy send X-Forwarded-Proto; on a closed lab network served over plain
    # HTTP, set DJANGO_SECURE_SSL_REDIRECT=0, DJANGO_SECURE_COOKIES=0 and
    # DJANGO_SECURE_HSTS_SECONDS=0 (`check --deploy` then warns, as it should).
    if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The guessing limits count per process without a shared cache: a lab server runs
    # several gunicorn workers (and maybe several hosts), so a Redis cache is required.
    if not CACHE_URL:
        raise ImproperlyConfigured(
            "QOELAB_CACHE_URL is not set; production mode refuses to start without a shared "
            "Redis cache for the sign-in limits (e.g. QOELAB_CACHE_URL=redis://:password@"
            "127.0.0.1:6379/2, a database of its own)."
        )
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # health checks probe plain HTTP on loopback
    SECURE_HSTS_SECONDS = _env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    # security.W021 asks for HSTS preloading, a commitment (submission to the browsers'
    # preload list) that a lab host name should opt into deliberately: DJANGO_SECURE_HSTS_PRELOAD=1.
    SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]

    # Compressed (gzip/brotli when available), content-hashed static files from STATIC_ROOT,
    # filled by `manage.py collectstatic` (at image build, or in the upgrade steps).
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

    LOGGING = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "qoelab.core.api_errors.RequestIdLogFilter"}},
        "formatters": {"json": {"()": JsonLogFormatter}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["console"], "level": os.environ.get("QOELAB_LOG_LEVEL", "INFO")},
    }
    # Let the worker log through LOGGING above (JSON) instead of Celery's own format.
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# ===== END PRODUCTION HARDENING ============================================================
