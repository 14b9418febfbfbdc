"""QoE Lab's test kit, shared by every suite (backend, analysis, agent, deploy, browser)."""
