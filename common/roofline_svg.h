// roofline_svg.h: a roofline picture as an SVG file, written by the course's own code.
//
// The roofline model: a kernel that does `ops` operations while moving `bytes` through DRAM has
// the arithmetic intensity ops / bytes. It can run no faster than the memory allows
// (bandwidth x intensity) nor than the arithmetic units allow (the compute peak): the lower of
// the two roofs is its ceiling. Each measured row is a point (intensity, achieved ops per
// second); how far it sits below its roof is what is left to gain.
//
//   RooflinePlot plot;  // title, ops_name ("FLOP"), memory roofs, compute roof, points
//   std::string svg = roofline_svg(plot);
//
// Log-log axes, a decade per grid line; labels beside the points, moved apart where they would
// overlap. Host code only (tested in common/tests.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

struct RooflineRoof {
    std::string label;         // "DRAM peak 3352 GB/s"
    double bytes_per_s = 0;    // the slope: ops/s = bytes_per_s * intensity
    bool measured = false;     // a measured roof (a copy) is drawn dashed
};

struct RooflinePoint {
    std::string label;         // "3 sequential"
    double intensity = 0;      // ops per DRAM byte
    double ops_per_s = 0;
    bool reference = false;    // a library row: drawn as a square
};

struct RooflinePlot {
    std::string title, subtitle;
    std::string ops_name = "FLOP";
    std::vector<RooflineRoof> memory_roofs;
    double compute_roof = 0;   // ops/s; 0: no compute roof (the ops are not arithmetic)
    std::string compute_label;
    std::vector<RooflinePoint> points;
};

namespace roofline_detail {

inline std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else if ((unsigned char)c >= 0x20) out += c;
    }
    return out;
}

// 1e9 -> "1 G", 3e-2 -> "0.03": axis labels at powers of ten.
inline std::string decade_label(int exponent) {
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    char buf[32];
    if (exponent >= 0 && exponent < 21) {
        std::snprintf(buf, sizeof buf, "%g %s", std::pow(10.0, exponent % 3), prefixes[exponent / 3]);
        std::string s = buf;
        while (!s.empty() && s.back() == ' ') s.pop_back();
        return s;
    }
    std::snprintf(buf, sizeof buf, "%g", std::pow(10.0, exponent));
    return buf;
}

inline std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

}  // namespace roofline_detail

inline std::string roofline_svg(const RooflinePlot& plot) {
    using namespace roofline_detail;
    const double width = 960, height = 600, left = 90, right = 250, top = 70, bottom = 70;
    const double plot_w = width - left - right, plot_h = height - top - bottom;

    // Axis ranges: every point and the ridge point inside, a little room around them.
    std::vector<RooflinePoint> points;
    for (const auto& p : plot.points)
        if (std::isfinite(p.intensity) && std::isfinite(p.ops_per_s) && p.intensity > 0 && p.ops_per_s > 0)
            points.push_back(p);
    double top_bw = 0;
    for (const auto& r : plot.memory_roofs) top_bw = std::max(top_bw, r.bytes_per_s);
    double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
    for (const auto& p : points) {
        x_lo = std::min(x_lo, p.intensity), x_hi = std::max(x_hi, p.intensity);
        y_lo = std::min(y_lo, p.ops_per_s), y_hi = std::max(y_hi, p.ops_per_s);
    }
    if (points.empty()) x_lo = x_hi = 1, y_lo = y_hi = 1e9;
    if (plot.compute_roof > 0 && top_bw > 0) {
        const double ridge = plot.compute_roof / top_bw;
        x_lo = std::min(x_lo, ridge), x_hi = std::max(x_hi, ridge);
        y_hi = std::max(y_hi, plot.compute_roof);
    } else if (top_bw > 0) {
        y_hi = std::max(y_hi, top_bw * x_hi);
    }
    int x0 = (int)std::floor(std::log10(x_lo / 3)), x1 = (int)std::ceil(std::log10(x_hi * 3));
    int y0 = (int)std::floor(std::log10(y_lo / 3)), y1 = (int)std::ceil(std::log10(y_hi * 2));
    if (x1 - x0 < 2) --x0, ++x1;
    if (y1 - y0 < 2) --y0, ++y1;
    auto px = [&](double x) { return left + plot_w * (std::log10(x) - x0) / (x1 - x0); };
    auto py = [&](double y) { return top + plot_h * (1 - (std::log10(y) - y0) / (y1 - y0)); };
    const double x_min = std::pow(10.0, x0), x_max = std::pow(10.0, x1);
    const double y_min = std::pow(10.0, y0), y_max = std::pow(10.0, y1);

    std::string s;
    s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    // A long title gets a smaller font rather than running off the picture (a bold sans-serif
    // letter is about 0.6 of the font size wide).
    const double title_size = std::max(9.0, std::min(16.0, (width - left - 20) / (0.6 * std::max<size_t>(1, plot.title.size()))));
    s += "<text x=\"" + num(left) + "\" y=\"28\" font-size=\"" + num(title_size) + "\" font-weight=\"bold\">" +
         xml_escape(plot.title) + "</text>\n";
    s += "<text x=\"" + num(left) + "\" y=\"48\" fill=\"#444\">" + xml_escape(plot.subtitle) + "</text>\n";
    // Grid and axes: one line per decade.
    for (int e = x0; e <= x1; ++e) {
        const double x = px(std::pow(10.0, e));
        s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top) + "\" x2=\"" + num(x) + "\" y2=\"" + num(top + plot_h) +
             "\" stroke=\"#ddd\"/>\n";
        s += "<text x=\"" + num(x) + "\" y=\"" + num(top + plot_h + 18) + "\" text-anchor=\"middle\">" +
             xml_escape(decade_label(e)) + "</text>\n";
    }
    for (int e = y0; e <= y1; ++e) {
        const double y = py(std::pow(10.0, e));
        s += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) + "\" y2=\"" + num(y) +
             "\" stroke=\"#ddd\"/>\n";
        s += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
             xml_escape(decade_label(e)) + "</text>\n";
    }
    s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot_w) + "\" height=\"" + num(plot_h) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
    s += "<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(height - 22) + "\" text-anchor=\"middle\">" +
         xml_escape("arithmetic intensity (" + plot.ops_name + " per byte of DRAM traffic)") + "</text>\n";
    s += "<text transform=\"translate(22," + num(top + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         xml_escape(plot.ops_name + " per second") + "</text>\n";

    // Roofs: each memory roof rises until it meets the compute roof (or leaves the plot).
    const double ceiling = plot.compute_roof > 0 ? std::min(plot.compute_roof, y_max) : y_max;
    for (const auto& r : plot.memory_roofs) {
        if (r.bytes_per_s <= 0) continue;
        const double xa = std::max(x_min, y_min / r.bytes_per_s), xb = std::min(x_max, ceiling / r.bytes_per_s);
        if (xa >= xb) continue;
        const std::string colour = r.measured ? "#888" : "#000";
        s += "<line x1=\"" + num(px(xa)) + "\" y1=\"" + num(py(r.bytes_per_s * xa)) + "\" x2=\"" + num(px(xb)) +
             "\" y2=\"" + num(py(r.bytes_per_s * xb)) + "\" stroke=\"" + colour + "\" stroke-width=\"2\"" +
             (r.measured ? " stroke-dasharray=\"6,4\"" : "") + "/>\n";
        // The label sits along the roof: a theoretical roof's above it, a third of the way up its
        // visible part; a measured roof's below it, further up, so that close roofs stay readable.
        const double along = r.measured ? 0.55 : 0.3;
        const double xl = std::pow(10.0, std::log10(xa) + (std::log10(xb) - std::log10(xa)) * along);
        const double angle = -std::atan2(py(r.bytes_per_s * xa) - py(r.bytes_per_s * xb), px(xb) - px(xa)) * 180 / M_PI;
        s += "<text transform=\"translate(" + num(px(xl)) + "," + num(py(r.bytes_per_s * xl) + (r.measured ? 16 : -6)) + ") rotate(" +
             num(angle) + ")\" fill=\"" + colour + "\">" + xml_escape(r.label) + "</text>\n";
    }
    if (plot.compute_roof > 0 && plot.compute_roof < y_max) {
        const double xa = top_bw > 0 ? std::max(x_min, plot.compute_roof / top_bw) : x_min;
        s += "<line x1=\"" + num(px(xa)) + "\" y1=\"" + num(py(plot.compute_roof)) + "\" x2=\"" + num(left + plot_w) +
             "\" y2=\"" + num(py(plot.compute_roof)) + "\" stroke=\"#000\" stroke-width=\"2\"/>\n";
        s += "<text x=\"" + num(left + plot_w - 4) + "\" y=\"" + num(py(plot.compute_roof) - 6) +
             "\" text-anchor=\"end\">" + xml_escape(plot.compute_label) + "</text>\n";
    }

    // Points, then their labels in the right margin's order of height, never closer than 14 px.
    struct Placed {
        double x, y, label_y;
        const RooflinePoint* p;
    };
    std::vector<Placed> placed;
    for (const auto& p : points) placed.push_back({px(p.intensity), py(p.ops_per_s), py(p.ops_per_s), &p});
    std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.y < b.y; });
    for (size_t i = 1; i < placed.size(); ++i)
        placed[i].label_y = std::max(placed[i].label_y, placed[i - 1].label_y + 14);
    const double overflow = placed.empty() ? 0 : placed.back().label_y - (top + plot_h);
    if (overflow > 0)  // pushed past the bottom: shift the whole column up, keeping the spacing
        for (auto& q : placed) q.label_y -= overflow;
    for (size_t i = placed.size(); i-- > 1;)
        placed[i - 1].label_y = std::min(placed[i - 1].label_y, placed[i].label_y - 14);
    const double label_x = left + plot_w + 14;
    for (const auto& q : placed) {
        const std::string colour = q.p->reference ? "#d62728" : "#1f77b4";
        if (q.p->reference)
            s += "<rect x=\"" + num(q.x - 5) + "\" y=\"" + num(q.y - 5) + "\" width=\"10\" height=\"10\" fill=\"" +
                 colour + "\"/>\n";
        else
            s += "<circle cx=\"" + num(q.x) + "\" cy=\"" + num(q.y) + "\" r=\"5\" fill=\"" + colour + "\"/>\n";
        s += "<line x1=\"" + num(q.x + 6) + "\" y1=\"" + num(q.y) + "\" x2=\"" + num(label_x - 3) + "\" y2=\"" +
             num(q.label_y - 4) + "\" stroke=\"" + colour + "\" stroke-width=\"0.6\" opacity=\"0.6\"/>\n";
        s += "<text x=\"" + num(label_x) + "\" y=\"" + num(q.label_y) + "\" fill=\"" + colour + "\">" +
             xml_escape(q.p->label) + "</text>\n";
    }
    s += "</svg>\n";
    return s;
}
