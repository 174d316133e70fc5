//===- Print.cpp - layouts as text tables and SVG pictures ----------------===//
#include "tessera/layout/Print.h"
#include "tessera/layout/NamedLayouts.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tessera::layout {

namespace {

/// For every element (flat row-major output index): the lowest flat input
/// that maps to it, and how many do.
struct Owners {
  std::vector<int64_t> first;
  std::vector<int32_t> count;
};

Owners computeOwners(const LinearLayout &l) {
  if (l.getTotalInDimSizeLog2() > 24 || l.getTotalOutDimSizeLog2() > 24)
    throw LayoutError("layout too large to print");
  Owners o;
  o.first.assign(l.getTotalOutDimSize(), -1);
  o.count.assign(l.getTotalOutDimSize(), 0);
  for (int64_t in = 0, n = l.getTotalInDimSize(); in < n; ++in) {
    int64_t out = l.applyLinear(in);
    if (o.first[out] < 0)
      o.first[out] = in;
    ++o.count[out];
  }
  return o;
}

bool isDistributed(const LinearLayout &l) {
  return l.hasInDim(kLane) || l.hasInDim(kRegister) || l.hasInDim(kWarp);
}

struct Label {
  std::string text;
  int64_t thread = -1; // -1: nobody
};

Label labelOf(const LinearLayout &l, const Owners &o, int64_t flatOut) {
  Label lab;
  int64_t in = o.first[flatOut];
  if (in < 0) {
    lab.text = "-";
    return lab;
  }
  std::ostringstream os;
  if (isDistributed(l)) {
    int64_t rest = in, reg = 0, thread = 0, scale = 1;
    for (auto &[n, s] : l.getInDims()) {
      int64_t v = rest % s;
      rest /= s;
      if (n == kRegister)
        reg = v;
      else {
        thread += v * scale;
        scale *= s;
      }
    }
    lab.thread = thread;
    os << "T" << thread << ":r" << reg;
  } else {
    lab.thread = in;
    os << in;
  }
  if (o.count[flatOut] > 1)
    os << "*";
  lab.text = os.str();
  return lab;
}

int64_t rowsOf(const LinearLayout &l) {
  auto outs = l.getOutDims();
  return outs.size() < 2 ? 1 : outs[0].second;
}

} // namespace

std::string elementLabel(const LinearLayout &l,
                         const std::vector<int32_t> &coords) {
  Owners o = computeOwners(l);
  int64_t flat = 0;
  auto outs = l.getOutDims();
  for (size_t d = 0; d < outs.size(); ++d)
    flat = flat * outs[d].second + coords.at(d);
  return labelOf(l, o, flat).text;
}

void printLayoutTable(const LinearLayout &l, std::ostream &os) {
  Owners o = computeOwners(l);
  int64_t total = l.getTotalOutDimSize();
  int64_t rows = rowsOf(l), cols = total / rows;
  std::vector<std::string> labels(total);
  size_t width = 1;
  for (int64_t i = 0; i < total; ++i) {
    labels[i] = labelOf(l, o, i).text;
    width = std::max(width, labels[i].size());
  }
  std::string rowHdr = std::to_string(rows - 1);
  os << "# " << l << "\n";
  os << std::string(rowHdr.size() + 1, ' ');
  for (int64_t c = 0; c < cols; ++c) {
    std::string h = std::to_string(c);
    os << " " << std::string(width - std::min(width, h.size()), ' ') << h;
  }
  os << "\n";
  for (int64_t r = 0; r < rows; ++r) {
    std::string h = std::to_string(r);
    os << std::string(rowHdr.size() - h.size(), ' ') << h << ":";
    for (int64_t c = 0; c < cols; ++c) {
      auto &s = labels[r * cols + c];
      os << " " << std::string(width - s.size(), ' ') << s;
    }
    os << "\n";
  }
}

std::string layoutTableString(const LinearLayout &l) {
  std::ostringstream os;
  printLayoutTable(l, os);
  return os.str();
}

void printLayoutSVG(const LinearLayout &l, std::ostream &os) {
  Owners o = computeOwners(l);
  int64_t total = l.getTotalOutDimSize();
  int64_t rows = rowsOf(l), cols = total / rows;
  const int cw = 56, ch = 22, margin = 30;
  int64_t w = margin + cols * cw + 4, h = margin + rows * ch + 4;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
     << "\" height=\"" << h
     << "\" font-family=\"monospace\" font-size=\"9\">\n";
  os << "<title>" << l << "</title>\n";
  for (int64_t c = 0; c < cols; ++c)
    os << "<text x=\"" << margin + c * cw + cw / 2 << "\" y=\"" << margin - 8
       << "\" text-anchor=\"middle\">" << c << "</text>\n";
  for (int64_t r = 0; r < rows; ++r)
    os << "<text x=\"" << margin - 4 << "\" y=\"" << margin + r * ch + 15
       << "\" text-anchor=\"end\">" << r << "</text>\n";
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      Label lab = labelOf(l, o, r * cols + c);
      std::string fill = "#ffffff";
      if (lab.thread >= 0) {
        // Golden-angle hues keep neighbouring threads apart.
        double hue = std::fmod(double(lab.thread) * 137.508, 360.0);
        std::ostringstream f;
        f << "hsl(" << int(hue) << ",70%," << (lab.thread % 2 ? 78 : 68)
          << "%)";
        fill = f.str();
      }
      int64_t x = margin + c * cw, y = margin + r * ch;
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw
         << "\" height=\"" << ch << "\" fill=\"" << fill
         << "\" stroke=\"#444\" stroke-width=\"0.5\"/>";
      os << "<text x=\"" << x + cw / 2 << "\" y=\"" << y + 15
         << "\" text-anchor=\"middle\">" << lab.text << "</text>\n";
    }
  os << "</svg>\n";
}

} // namespace tessera::layout
