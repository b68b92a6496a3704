// A small SVG line chart: two series against one x axis, each with its own y scale.
export interface Series { name: string; color: string; points: [number, number][]; unit: string }

/** `xTicks`: the x values to label (default: every point's); `dots`: a circle on each point (default on). */
export function lineChart(title: string, xLabel: string, left: Series, right: Series, xTicks?: number[], dots = true): string {
  const W = 720, H = 380, L = 70, R = 70, T = 40, B = 50;
  const xs = [...left.points, ...right.points].map((p) => p[0]);
  const xMin = Math.min(...xs), xMax = Math.max(...xs);
  const sx = (x: number) => L + ((x - xMin) / Math.max(1, xMax - xMin)) * (W - L - R);
  const scale = (s: Series) => {
    const max = Math.max(1e-9, ...s.points.map((p) => p[1])) * 1.1;
    return { max, y: (v: number) => H - B - (v / max) * (H - T - B) };
  };
  const ls = scale(left), rs = scale(right);
  const path = (s: Series, y: (v: number) => number) => s.points.map((p, i) => `${i ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ');
  const marks = (s: Series, y: (v: number) => number) => s.points.map((p) => `<circle cx="${sx(p[0]).toFixed(1)}" cy="${y(p[1]).toFixed(1)}" r="3" fill="${s.color}"/>`).join('');
  const ticks = (max: number, y: (v: number) => number, x: number, anchor: string, color: string) =>
    [0, 0.25, 0.5, 0.75, 1].map((f) => `<text x="${x}" y="${(y(max * f) + 4).toFixed(1)}" text-anchor="${anchor}" font-size="11" fill="${color}">${(max * f).toFixed(max * f >= 10 ? 0 : 1)}</text>`).join('');
  const xticks = (xTicks ?? [...new Set(xs)]).map((x) => `<text x="${sx(x).toFixed(1)}" y="${H - B + 18}" text-anchor="middle" font-size="11">${x}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${title}</text>
<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#444"/>
<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="${left.color}"/>
<line x1="${W - R}" y1="${T}" x2="${W - R}" y2="${H - B}" stroke="${right.color}"/>
${ticks(ls.max, ls.y, L - 6, 'end', left.color)}${ticks(rs.max, rs.y, W - R + 6, 'start', right.color)}${xticks}
<text x="${W / 2}" y="${H - 10}" text-anchor="middle" font-size="12">${xLabel}</text>
<text x="16" y="${T - 12}" font-size="12" fill="${left.color}">${left.name} (${left.unit})</text>
<text x="${W - 16}" y="${T - 12}" text-anchor="end" font-size="12" fill="${right.color}">${right.name} (${right.unit})</text>
<path d="${path(left, ls.y)}" fill="none" stroke="${left.color}" stroke-width="2"/>${dots ? marks(left, ls.y) : ''}
<path d="${path(right, rs.y)}" fill="none" stroke="${right.color}" stroke-width="2" stroke-dasharray="6 3"/>${dots ? marks(right, rs.y) : ''}
</svg>
`;
}
