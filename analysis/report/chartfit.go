package report

// chartFit lays a chart out for the width it is drawn at, before ECharts
// draws it, so that nothing of it is clipped or drawn without a mark:
//
//   - the grid contains its axis labels (grid.containLabel, which reserves
//     the height of rotated x labels, and a left margin computed here for
//     the first ones, which run left of their ticks), so no label runs off
//     the left or bottom edge; a rotated category label longer than 220 px
//     is cut in the middle, its start and end kept around an ellipsis (the
//     tooltip names the category in full);
//   - an x axis's name sits centred under its labels (ECharts' default puts
//     it past the axis end, where a long name is cut at the right edge),
//     and a y axis's name starts at its axis line and runs inwards (centred,
//     a long name is cut at the left edge);
//   - the grid's top leaves room for the legend as it wraps at this width
//     (text measured on a canvas, ECharts' item sizes: 25 px icon, 5 px to
//     the text, 10 px between items, rows of 24 px), and the chart grows by
//     what the legend and rotated labels take, so the plot keeps its height;
//   - a line series with fewer than two points draws no line (one point of
//     a run with one sample, a CDF of one value): it shows its points, so
//     its legend entry has a mark on the chart.
//
// A grid's own top larger than the one computed is kept.
const chartFit = `function (el, o) {
  function arr(x) { return x == null ? [] : Array.isArray(x) ? x : [x]; }
  var ctx = document.createElement('canvas').getContext('2d');
  function width(s, size) { ctx.font = (size || 12) + 'px sans-serif'; return ctx.measureText(String(s)).width; }
  function value(d) {
    var v = d !== null && typeof d === 'object' && !Array.isArray(d) ? d.value : d;
    if (Array.isArray(v)) v = v[v.length - 1];
    return v;
  }
  var W = el.clientWidth || 1000, plot = 280, maxLabel = 220;
  arr(o.series).forEach(function (s) {
    if (s.type !== 'line') return;
    var n = arr(s.data).filter(function (d) { var v = value(d); return v != null && v !== '-' && v === v; }).length;
    if (n < 2) { s.showSymbol = true; if (!s.symbolSize) s.symbolSize = 7; }
  });
  var legendH = 0, lg = arr(o.legend)[0];
  if (lg && lg.show !== false) {
    var names = lg.data ? arr(lg.data).map(function (d) { return typeof d === 'object' ? d.name : d; })
                        : arr(o.series).map(function (s) { return s.name; });
    var rows = names.length ? 1 : 0, x = 0;
    if (lg.type !== 'scroll') names.forEach(function (n) {
      var w = 25 + 5 + width(n) + 10;
      if (x > 0 && x + w > W - 10) { rows++; x = 0; }
      x += w;
    });
    legendH = rows * 24 + 6;
  }
  var xs = arr(o.xAxis), ys = arr(o.yAxis), labelsH = 20, bottom = 12;
  var left = 16;
  xs.forEach(function (a) {
    var rot = ((a.axisLabel || {}).rotate || 0) * Math.PI / 180, h = 20;
    if (rot && a.data) {
      var cats = arr(a.data).map(function (c) { return width(c !== null && typeof c === 'object' ? c.value : c); });
      var mw = Math.max.apply(null, cats.concat([0]));
      if (mw > maxLabel) {
        // Cut in the middle: categories that differ only at the end (a
        // grid point's parameters) stay told apart.
        var keep = Math.floor(maxLabel / (mw / Math.max.apply(null, arr(a.data).map(function (c) { return String(c !== null && typeof c === 'object' ? c.value : c).length; }))));
        a.axisLabel.formatter = function (v) {
          v = String(v);
          if (v.length <= keep) return v;
          var head = Math.floor(keep * 0.4);
          return v.slice(0, head) + '…' + v.slice(v.length - (keep - head - 1));
        };
        mw = maxLabel;
      }
      h = mw * Math.abs(Math.sin(rot)) + 12 * Math.abs(Math.cos(rot)) + 8;
      // containLabel reserves a rotated label's height only: the label of
      // category k runs w·cos(rot) left of its tick, (k + ½) bands in.
      var band = (W - 100) / Math.max(1, cats.length);
      cats.forEach(function (w, k) { left = Math.max(left, Math.min(w, maxLabel) * Math.abs(Math.cos(rot)) - (k + 0.5) * band + 8); });
    }
    labelsH = Math.max(labelsH, h);
    if (a.name) {
      a.nameLocation = 'middle';
      a.nameGap = Math.ceil(h + 10);
      bottom = 30;
    }
  });
  var yName = false;
  ys.forEach(function (a, i) {
    if (!a.name) return;
    yName = true;
    var right = a.position === 'right' || (i > 0 && a.position !== 'left');
    a.nameTextStyle = Object.assign({ align: right ? 'right' : 'left' }, a.nameTextStyle);
  });
  if (arr(o.dataZoom).some(function (z) { return z.type === 'slider'; })) bottom += 44;
  var top = legendH + (yName ? 28 : 12);
  var grids = arr(o.grid);
  if (!grids.length) grids = [{}];
  grids.forEach(function (g) {
    g.containLabel = true;
    var own = parseFloat(g.top);
    if (!(own > top) || String(g.top).indexOf('%') >= 0) g.top = top;
    if (g.bottom == null) g.bottom = bottom;
    if (g.left == null) g.left = Math.ceil(left);
    if (g.right == null) g.right = 24;
  });
  o.grid = grids;
  el.style.height = Math.ceil(Math.max(parseFloat(grids[0].top) || top, top) + plot + labelsH + bottom) + 'px';
}`
