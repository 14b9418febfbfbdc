/**
 * The factor registry as `GET /api/v1/factors/` serves it, for the editor tests: generated from
 * `netem_profile.factors.catalog()` (netem-profile/src/netem_profile/factors.py); regenerate it when
 * the registry changes.
 */
import type { FactorCatalog } from '../../api';

export const FACTOR_CATALOG: FactorCatalog = {
  "factors": [
    {
      "key": "delay_ms",
      "label": "Delay",
      "kind": "numeric",
      "unit": "ms",
      "minimum": 0,
      "maximum": 60000,
      "neutral": 0,
      "kpi": "max_delay_ms",
      "choices": [],
      "columns": {
        "downstream": "ds_delay_ms",
        "upstream": "us_delay_ms"
      }
    },
    {
      "key": "jitter_ms",
      "label": "Jitter",
      "kind": "numeric",
      "unit": "ms",
      "minimum": 0,
      "maximum": 60000,
      "neutral": 0,
      "kpi": "max_jitter_ms",
      "choices": [],
      "columns": {
        "downstream": "ds_jitter_ms",
        "upstream": "us_jitter_ms"
      }
    },
    {
      "key": "jitter_distribution",
      "label": "Jitter distribution",
      "kind": "nominal",
      "unit": "",
      "minimum": null,
      "maximum": null,
      "neutral": "normal",
      "kpi": null,
      "choices": [
        "normal",
        "pareto",
        "paretonormal"
      ],
      "columns": {
        "downstream": "ds_jitter_distribution",
        "upstream": "us_jitter_distribution"
      }
    },
    {
      "key": "delay_correlation_pct",
      "label": "Delay correlation",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_delay_correlation_pct",
        "upstream": "us_delay_correlation_pct"
      }
    },
    {
      "key": "loss_pct",
      "label": "Loss",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": "max_loss_pct",
      "choices": [],
      "columns": {
        "downstream": "ds_loss_pct",
        "upstream": "us_loss_pct"
      }
    },
    {
      "key": "loss_correlation_pct",
      "label": "Loss correlation",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_loss_correlation_pct",
        "upstream": "us_loss_correlation_pct"
      }
    },
    {
      "key": "ge_p_pct",
      "label": "Burst loss: p (good→bad)",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_ge_p_pct",
        "upstream": "us_ge_p_pct"
      }
    },
    {
      "key": "ge_r_pct",
      "label": "Burst loss: r (bad→good)",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 100,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_ge_r_pct",
        "upstream": "us_ge_r_pct"
      }
    },
    {
      "key": "ge_loss_bad_pct",
      "label": "Burst loss: loss in bad state",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 100,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_ge_loss_bad_pct",
        "upstream": "us_ge_loss_bad_pct"
      }
    },
    {
      "key": "ge_loss_good_pct",
      "label": "Burst loss: loss in good state",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_ge_loss_good_pct",
        "upstream": "us_ge_loss_good_pct"
      }
    },
    {
      "key": "rate_kbit",
      "label": "Rate limit",
      "kind": "numeric",
      "unit": "kbit/s",
      "minimum": 0,
      "maximum": 100000000,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_rate_kbit",
        "upstream": "us_rate_kbit"
      }
    },
    {
      "key": "reorder_pct",
      "label": "Reordering",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_reorder_pct",
        "upstream": "us_reorder_pct"
      }
    },
    {
      "key": "reorder_correlation_pct",
      "label": "Reorder correlation",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_reorder_correlation_pct",
        "upstream": "us_reorder_correlation_pct"
      }
    },
    {
      "key": "duplicate_pct",
      "label": "Duplication",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_duplicate_pct",
        "upstream": "us_duplicate_pct"
      }
    },
    {
      "key": "corrupt_pct",
      "label": "Corruption",
      "kind": "numeric",
      "unit": "%",
      "minimum": 0,
      "maximum": 100,
      "neutral": 0,
      "kpi": null,
      "choices": [],
      "columns": {
        "downstream": "ds_corrupt_pct",
        "upstream": "us_corrupt_pct"
      }
    }
  ],
  "directions": {
    "downstream": "server→client",
    "upstream": "client→server"
  },
  "max_scenarios": 100
};
