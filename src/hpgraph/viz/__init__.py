"""Pictures of communities: a rasterised PNG (:func:`render_png`) and one self-contained
interactive HTML page (:func:`write_page`), both from plain arrays (a layout, each
vertex's strongest community, optional names, memberships and leaders)."""

from hpgraph.viz.page import write_page
from hpgraph.viz.raster import render_png

__all__ = ["render_png", "write_page"]
