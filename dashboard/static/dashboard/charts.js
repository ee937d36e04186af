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

  function usd(v) { return "$" + Number(v).toFixed(v >= 1 ? 2 : 4); }
  function shortDay(s) { return s.slice(5); }

  var builders = {
    perDay: function (d) {
      return {
        type: "line",
        data: { labels: d.labels.map(shortDay), datasets: [
          { label: "Verifications", data: d.total, borderColor: C.brand, backgroundColor: C.brandSoft, fill: true, cubicInterpolationMode: "monotone", pointRadius: 0 },
          { label: "Hallucination detected", data: d.detected, borderColor: C.red, backgroundColor: C.redSoft, fill: true, cubicInterpolationMode: "monotone", pointRadius: 0 }
        ] },
        options: { interaction: { mode: "index", intersect: false }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } }
      };
    },
    scores: function (d) {
      var colors = d.labels.map(function (_, i) { return i >= 6 ? C.red : i >= 3 ? C.orange : C.green; });
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [{ label: "Verifications", data: d.counts, backgroundColor: colors, borderRadius: 4 }] },
        options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } }, x: { title: { display: true, text: "hallucination score" } } } }
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
          { label: "Billed", data: d.price, borderColor: C.brand, backgroundColor: C.brandSoft, fill: true, cubicInterpolationMode: "monotone", pointRadius: 0 },
          { label: "Provider cost", data: d.provider, borderColor: C.orange, cubicInterpolationMode: "monotone", pointRadius: 0 }
        ] },
        options: {
          interaction: { mode: "index", intersect: false },
          plugins: { tooltip: { callbacks: { label: function (c) { return c.dataset.label + ": " + usd(c.parsed.y); } } } },
          scales: { y: { beginAtZero: true, ticks: { callback: usd } } }
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
        options: { indexAxis: "y", scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }
      };
    },
    revenue: function (d) {
      return {
        type: "bar",
        data: { labels: d.labels, datasets: [
          { label: "Revenue", data: d.price, backgroundColor: C.brand, borderRadius: 4 },
          { label: "Provider cost", data: d.provider, backgroundColor: C.orange, borderRadius: 4 }
        ] },
        options: { scales: { y: { beginAtZero: true, ticks: { callback: usd } } } }
      };
    }
  };

  document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
    var key = canvas.dataset.chart, kind = canvas.dataset.kind || key;
    if (!data[key] || !builders[kind]) return;
    new Chart(canvas, builders[kind](data[key]));
  });
})();
