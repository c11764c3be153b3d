import { defineError } from "../../error.ts";

export const CoordinateAmbiguous = defineError<{ grid: string }>("coordinate_ambiguous");
export const CoordinateOutOfRange = defineError<{ grid: string }>("coordinate_out_of_range");

/** A rectangle in real screen pixels. */
export type ScreenRegion = { x: number; y: number; width: number; height: number };

/**
 * The picture the model looked at last, which decides how its coordinates read. `screen`: a screenshot scaled to
 * display_width_px × display_height_px. `zoom`: a crop of `region` (real pixels) shown at width × height.
 */
export type LastImage =
  | { kind: "screen"; width: number; height: number }
  | { kind: "zoom"; width: number; height: number; region: ScreenRegion };

export type Grid = "screen" | "zoom";

/**
 * The grid rule, so that a coordinate is never a guess. Coordinates are read on the full-screen grid (the
 * configured display size). After a zoom the model's last picture is the crop, and a point that lies inside the
 * crop's bounds lies inside the screen's too (the crop is never shown larger than the screen grid): the same
 * numbers mean two different places. Such a pointer action is refused with coordinate_ambiguous unless the call
 * says which grid it means (`grid: "screen"` or `grid: "zoom"`); a point only one grid holds needs no hint.
 * A screenshot makes the screen grid the last picture again.
 */
export function toScreen(
  point: readonly [number, number],
  grid: Grid | undefined,
  last: LastImage | undefined,
  screen: { gridWidth: number; gridHeight: number; realWidth: number; realHeight: number },
): { x: number; y: number } {
  const [x, y] = point;
  const onScreenGrid = inside(x, y, screen.gridWidth, screen.gridHeight);
  const zoom = last?.kind === "zoom" ? last : undefined;
  const onZoomGrid = zoom ? inside(x, y, zoom.width, zoom.height) : false;
  if (grid === "zoom" && !zoom)
    throw CoordinateAmbiguous(
      'grid "zoom" reads a zoom crop, and the last picture was not one; use the full-screen grid (leave grid out)',
      { grid: "zoom" },
    );
  const chosen: Grid = grid ?? (zoom && onZoomGrid ? ambiguous(zoom, screen) : "screen");
  if (chosen === "zoom") {
    if (!onZoomGrid)
      throw CoordinateOutOfRange(`(${x}, ${y}) is outside the zoom crop's ${zoom!.width}×${zoom!.height} grid`, {
        grid: "zoom",
      });
    const r = zoom!.region;
    return {
      x: clamp(Math.round(r.x + (x * r.width) / zoom!.width), 0, screen.realWidth - 1),
      y: clamp(Math.round(r.y + (y * r.height) / zoom!.height), 0, screen.realHeight - 1),
    };
  }
  if (!onScreenGrid)
    throw CoordinateOutOfRange(
      `(${x}, ${y}) is outside the screen grid: x 0–${screen.gridWidth - 1}, y 0–${screen.gridHeight - 1}`,
      { grid: "screen" },
    );
  return {
    x: clamp(Math.round((x * screen.realWidth) / screen.gridWidth), 0, screen.realWidth - 1),
    y: clamp(Math.round((y * screen.realHeight) / screen.gridHeight), 0, screen.realHeight - 1),
  };
}

/** A region the model gives on the full-screen grid ([x1, y1, x2, y2]), in real pixels. */
export function regionToScreen(
  region: readonly [number, number, number, number],
  screen: { gridWidth: number; gridHeight: number; realWidth: number; realHeight: number },
): ScreenRegion {
  const [x1, y1, x2, y2] = region;
  if (!(x2 > x1 && y2 > y1))
    throw CoordinateOutOfRange("region is [x1, y1, x2, y2] with x2 > x1 and y2 > y1", { grid: "screen" });
  const a = toScreen([x1, y1], "screen", undefined, screen);
  const b = toScreen(
    [Math.min(x2, screen.gridWidth - 1), Math.min(y2, screen.gridHeight - 1)],
    "screen",
    undefined,
    screen,
  );
  return { x: a.x, y: a.y, width: Math.max(1, b.x - a.x), height: Math.max(1, b.y - a.y) };
}

/** The size a crop is shown at: magnified to fit the screen grid, its shape kept. */
export function zoomSize(
  region: ScreenRegion,
  gridWidth: number,
  gridHeight: number,
): { width: number; height: number } {
  const scale = Math.min(gridWidth / region.width, gridHeight / region.height);
  return {
    width: Math.max(1, Math.min(gridWidth, Math.round(region.width * scale))),
    height: Math.max(1, Math.min(gridHeight, Math.round(region.height * scale))),
  };
}

function ambiguous(
  zoom: Extract<LastImage, { kind: "zoom" }>,
  screen: { gridWidth: number; gridHeight: number },
): never {
  throw CoordinateAmbiguous(
    `The last picture was a ${zoom.width}×${zoom.height} zoom crop, and this point fits both it and the ` +
      `${screen.gridWidth}×${screen.gridHeight} screen grid. Coordinates are read on the full-screen grid: take a ` +
      'screenshot first, or say which grid you mean with grid: "screen" or grid: "zoom".',
    { grid: "ambiguous" },
  );
}

function inside(x: number, y: number, width: number, height: number): boolean {
  return x >= 0 && y >= 0 && x < width && y < height;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
