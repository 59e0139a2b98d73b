"""The full listing of ad_core.custom_vjp: primitive plus a defvjp method."""

from ad_core import custom_vjp
from bookkit import show_source

print(show_source(custom_vjp))
