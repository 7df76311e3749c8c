// Pieces of the HTML report that other pages (the history's trend page) share: escaping,
// number formats and the style sheet. Internal to src/report/.
#pragma once

#include <string>

namespace gpb::html {

std::string escape(const std::string& text);  // for text and attribute values
std::string coordinate(double value);         // an SVG coordinate, one decimal
std::string exact(double value);              // shortest text that reads back as value
const char* page_style();                     // the report's CSS, its svg.plot rules included

}  // namespace gpb::html
