"""Pure renderers: validated config in, provider inputs / manifests out; each with its reader.

Nothing here imports a Pulumi resource class, so these functions test without mocks.
"""
