/* Draws the dashboard's charts from the JSON the server embeds (json_script "chart-data").
   Chart.js is vendored under static/dashboard/vendor; nothing is fetched from elsewhere. */
(function () {
  "use strict";
  var source = document.getElementById("chart-data");
  if (!source || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);

  var C = {
    brand: "#3b5bdb", brandSoft: "rgba(59,91,219,.15)", red: "#e03131", redSoft: "rgba(224,49,49,.15)",
    teal: "#15aabf", orange: "#f59f00", grey: "#adb5bd", green: "#2f9e44"
  };
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = "#5d6b82";
  Chart.defaults.plugins.legend.labels.boxWidth = 12;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.animation = false; // steadier screenshots and less CPU

  /* One money format for axes and tooltips, the same rule as the `money` template filter:
     thousands separators and 2 decimals; more (up to 8, trailing zeros dropped) only for a
     non-zero amount below a cent. */
  function money(v) {
    var n = Number(v), a = Math.abs(n), sign = n < 0 ? "-" : "";
    if (a === 0 || a >= 0.01) {
      return sign + "$" + a.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    return sign + "$" + a.toFixed(8).replace(/0+$/, "");
  }
  /* Counts: straight segments (a smoothed curve overshoots below 0 and between whole
     numbers), the axis starts at 0 and ticks are integers. */
  function countAxis() { return { min: 0, beginAtZero: true, ticks: { precision: 0 } }; }
  function moneyAxis() { return { min: 0, beginAtZero: true, ticks: { callback: money } }; }
  function moneyTooltip(c) { return c.dataset.label + ": " + money(c.parsed.y !== undefined ? c.parsed.y : c.parsed); }
  function shortDay(s) { return s.slice(5); }

  var builders = {
    perDay: function (d) {
      return {
        type: "line",
        data: { labels: d.labels.map(shortDay), datasets: [
          { label: "Verifications", data: d.total, borderColor: C.brand, backgroundColor: C.brandSoft, fill: true, tension: 0, pointRadius: 0 },
          { label: "Hallucination detected", data: d.detected, borderColor: C.red, backgroundColor: C.redSoft, fill: true, tension: 0, pointRadius: 0 }
        ] },
        options: { interaction: { mode: "index", intersect: false }, scales: { y: countAxis() } }
      };
    },
    scores: function (d) {
      var colors = d.labels.map(function (_, i) { return i >= 6 ? C.red : i >= 3 ? C.orange : C.green; });
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [{ label: "Verifications", data: d.counts, backgroundColor: colors, borderRadius: 4 }] },
        options: { plugins: { legend: { display: false } }, scales: { y: countAxis(), x: { title: { display: true, text: "hallucination score" } } } }
      };
    },
    latency: function (d) {
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [
          { label: "p50", data: d.p50, backgroundColor: C.brand, borderRadius: 4 },
          { label: "p95", data: d.p95, backgroundColor: C.teal, borderRadius: 4 }
        ] },
        options: { scales: { y: { beginAtZero: true, title: { display: true, text: "ms" } } } }
      };
    },
    cost: function (d) {
      return {
        type: "line",
        data: { labels: d.labels.map(shortDay), datasets: [
          { label: "Billed", data: d.price, borderColor: C.brand, backgroundColor: C.brandSoft, fill: true, tension: 0, pointRadius: 0 },
          { label: "Provider cost", data: d.provider, borderColor: C.orange, tension: 0, pointRadius: 0 }
        ] },
        options: {
          interaction: { mode: "index", intersect: false },
          plugins: { tooltip: { callbacks: { label: moneyTooltip } } },
          scales: { y: moneyAxis() }
        }
      };
    },
    breakdown: function (d) {
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [
          { label: "Verifications", data: d.total, backgroundColor: C.brandSoft, borderColor: C.brand, borderWidth: 1, borderRadius: 4 },
          { label: "Detected", data: d.detected, backgroundColor: C.red, borderRadius: 4 }
        ] },
        options: { indexAxis: "y", scales: { x: countAxis() } }
      };
    },
    revenue: function (d) {
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [
          { label: "Revenue", data: d.price, backgroundColor: C.brand, borderRadius: 4 },
          { label: "Provider cost", data: d.provider, backgroundColor: C.orange, borderRadius: 4 }
        ] },
        options: {
          plugins: { tooltip: { callbacks: { label: moneyTooltip } } },
          scales: { y: moneyAxis() }
        }
      };
    }
  };

  document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
    var key = canvas.dataset.chart, kind = canvas.dataset.kind || key;
    if (!data[key] || !builders[kind]) return;
    new Chart(canvas, builders[kind](data[key]));
  });
})();
