/** A square ring with its lower left corner at x, y and side s, clockwise (an ArcGIS exterior ring). */
export const square = (x: number, y: number, s: number): number[][] => [
  [x, y],
  [x, y + s],
  [x + s, y + s],
  [x + s, y],
  [x, y],
];
