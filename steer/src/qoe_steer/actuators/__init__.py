"""Actuators: carry a steering decision out on a controller (OVS, Faucet, os-ken)."""
