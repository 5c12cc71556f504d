/* ntk4j report charts: line charts with uPlot (hover values, drag to zoom, double-click to reset, click a legend
   entry to hide its series) and kernel heatmaps on a canvas (hover shows the cell). Reads the figures from the
   JSON block #ntk4j-figures; needs nothing from the network. */
(function () {
  "use strict";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#8c6d31", "#7b4173", "#3182bd"];

  /** Four significant digits; integers as integers; scientific outside [1e-3, 1e5). */
  function fmt(v) {
    if (v == null || isNaN(v)) return "–";
    if (!isFinite(v)) return v > 0 ? "∞" : "−∞";
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    var a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(3);
    return String(Number(v.toPrecision(4)));
  }

  function tick(v) {
    if (v == null) return "";
    var a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return Number(v.toPrecision(3)).toExponential();
    return String(Number(v.toPrecision(6)));
  }

  /** A log axis spans the data (a little margin), not whole decades: within one decade it still shows 1-9 ticks. */
  function logRange(u, min, max) {
    if (min == null || max == null || !(min > 0)) return [1, 10];
    return [min / 1.15, max * 1.15];
  }

  function lineChart(el, f) {
    var x = f.x;
    var data = [x];
    var series = [{label: f.xLabel || "x", value: function (u, v) { return fmt(v); }}];
    f.series.forEach(function (s, i) {
      var y = f.logY ? s.y.map(function (v) { return v != null && v > 0 ? v : null; }) : s.y;
      data.push(y);
      series.push({
        label: s.name,
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        spanGaps: true,
        points: {show: x.length <= 60, size: 5},
        value: function (u, v) { return fmt(v); }
      });
    });
    var opts = {
      title: f.title,
      width: Math.max(320, el.clientWidth || 520),
      height: 300,
      scales: {x: {time: false}, y: f.logY ? {distr: 3, log: 10, range: logRange} : {}},
      series: series,
      axes: [
        {label: f.xLabel, values: function (u, vals) { return vals.map(tick); }},
        {label: f.yLabel, size: 64, values: function (u, vals) { return vals.map(tick); }}
      ],
      cursor: {drag: {x: true, y: true, uni: 40}},
      legend: {live: true}
    };
    var u = new uPlot(opts, data, el);
    window.addEventListener("resize", function () {
      u.setSize({width: Math.max(320, el.clientWidth || 520), height: 300});
    });
    return u;
  }

  var VIRIDIS = [[68, 1, 84], [72, 40, 120], [62, 73, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137],
                 [53, 183, 121], [110, 206, 88], [181, 222, 43], [253, 231, 37]];
  var DIVERGING = [[59, 76, 192], [255, 255, 255], [180, 4, 38]];

  function colour(t, lut) {
    var s = Math.max(0, Math.min(1, t)) * (lut.length - 1);
    var i = Math.min(Math.floor(s), lut.length - 2), w = s - i, a = lut[i], b = lut[i + 1];
    return [a[0] + w * (b[0] - a[0]), a[1] + w * (b[1] - a[1]), a[2] + w * (b[2] - a[2])];
  }

  function heatmap(el, f) {
    var z = f.z, rows = z.length, cols = rows ? z[0].length : 0;
    var lo = Infinity, hi = -Infinity;
    z.forEach(function (r) { r.forEach(function (v) { if (v != null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }); });
    if (lo > hi) { lo = 0; hi = 1; }
    var div = lo < 0 && hi > 0;
    if (div) { var m = Math.max(-lo, hi); lo = -m; hi = m; }
    if (hi === lo) hi = lo + 1;
    var lut = div ? DIVERGING : VIRIDIS;
    var L = 70, T = 8, R = 96, B = 58, side = Math.min(Math.max(260, (el.clientWidth || 520) - L - R), 460);
    var title = document.createElement("div");
    title.className = "hm-title";
    title.textContent = f.title;
    el.appendChild(title);
    var wrap = document.createElement("div");
    wrap.className = "hm-wrap";
    el.appendChild(wrap);
    var cv = document.createElement("canvas");
    var W = L + side + R, H = T + side + B, dpr = window.devicePixelRatio || 1;
    cv.width = W * dpr; cv.height = H * dpr; cv.style.width = W + "px"; cv.style.height = H + "px";
    wrap.appendChild(cv);
    var tip = document.createElement("div");
    tip.className = "hm-tip";
    tip.textContent = "hover a cell";
    el.appendChild(tip);
    var g = cv.getContext("2d");
    g.scale(dpr, dpr);
    var img = g.createImageData(cols, rows);
    for (var i = 0; i < rows; i++) {
      for (var j = 0; j < cols; j++) {
        var v = z[i][j], k = 4 * (i * cols + j);
        var c = v == null ? [200, 200, 200] : colour((v - lo) / (hi - lo), lut);
        img.data[k] = c[0]; img.data[k + 1] = c[1]; img.data[k + 2] = c[2]; img.data[k + 3] = 255;
      }
    }
    var off = document.createElement("canvas");
    off.width = cols; off.height = rows;
    off.getContext("2d").putImageData(img, 0, 0);
    g.imageSmoothingEnabled = false;
    g.drawImage(off, L, T, side, side);
    g.strokeStyle = "#444"; g.strokeRect(L, T, side, side);
    g.font = "12px sans-serif"; g.fillStyle = "#000"; g.textBaseline = "middle";
    var cw = side / cols, ch = side / rows, xTitle = f.xLabel || "", yTitle = f.yLabel || "";
    function tx(s, x) { g.textAlign = "center"; g.fillText(s, x, T + side + 12); }
    function ty(s, y) { g.textAlign = "right"; g.fillText(s, L - 6, y); }
    var cls = f.classes;
    if (f.kind === "grid") {
      f.xTicks.forEach(function (s, j) { tx(s, L + (j + 0.5) * cw); });
      f.yTicks.forEach(function (s, i) { ty(s, T + (i + 0.5) * ch); });
    } else if (cls && cls.length === rows) {
      var start = 0;
      g.strokeStyle = "#fff"; g.lineWidth = 1.5;
      for (var q = 1; q <= rows; q++) {
        if (q === rows || cls[q] !== cls[start]) {
          tx(String(cls[start]), L + (start + q) / 2 * cw);
          ty(String(cls[start]), T + (start + q) / 2 * ch);
          if (q < rows) {
            g.beginPath(); g.moveTo(L + q * cw, T); g.lineTo(L + q * cw, T + side);
            g.moveTo(L, T + q * ch); g.lineTo(L + side, T + q * ch); g.stroke();
          }
          start = q;
        }
      }
      xTitle = yTitle = "probe sample, sorted by class (class label)";
    } else {
      tx("0", L + cw / 2); tx(String(cols - 1), L + side - cw / 2);
      ty("0", T + ch / 2); ty(String(rows - 1), T + side - ch / 2);
    }
    g.textAlign = "center";
    g.fillText(xTitle, L + side / 2, T + side + 36);
    g.save(); g.translate(14, T + side / 2); g.rotate(-Math.PI / 2); g.fillText(yTitle, 0, 0); g.restore();
    var bx = L + side + 22;
    for (var s = 0; s < 100; s++) {
      var cc = colour(1 - (s + 0.5) / 100, lut);
      g.fillStyle = "rgb(" + cc.map(Math.round).join(",") + ")";
      g.fillRect(bx, T + s * side / 100, 14, side / 100 + 1);
    }
    g.strokeStyle = "#444"; g.lineWidth = 1; g.strokeRect(bx, T, 14, side);
    g.fillStyle = "#000"; g.textAlign = "left";
    for (var t = 0; t <= 4; t++) g.fillText(fmt(hi - t * (hi - lo) / 4), bx + 19, T + t * side / 4);
    cv.addEventListener("mousemove", function (e) {
      var r = cv.getBoundingClientRect();
      var j = Math.floor((e.clientX - r.left - L) / cw), i = Math.floor((e.clientY - r.top - T) / ch);
      if (i < 0 || j < 0 || i >= rows || j >= cols) { tip.textContent = "hover a cell"; return; }
      var where;
      if (f.kind === "grid") where = (f.yLabel || "row") + " " + f.yTicks[i] + ", " + (f.xLabel || "column") + " " + f.xTicks[j];
      else if (cls) where = "row " + i + " (class " + cls[i] + "), column " + j + " (class " + cls[j] + ")";
      else where = "row " + i + ", column " + j;
      tip.textContent = where + ": " + fmt(z[i][j]);
    });
    cv.addEventListener("mouseleave", function () { tip.textContent = "hover a cell"; });
    return {tip: tip};
  }

  var node = document.getElementById("ntk4j-figures");
  var figures = node ? JSON.parse(node.textContent) : [];
  var charts = [];
  document.querySelectorAll(".fig[data-fig]").forEach(function (el) {
    var f = figures[Number(el.getAttribute("data-fig"))];
    var box = el.querySelector(".chart");
    charts.push(f.kind === "lines" ? lineChart(box, f) : heatmap(box, f));
  });
  window.ntk4jCharts = charts;
})();
