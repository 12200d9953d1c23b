// Tiny JSON text helpers for the hot path of the event log: quoting (strict JSON whatever the
// bytes: what is not UTF-8 is written \u00NN, the Latin-1 character of its value) and the shortest
// round-trip spelling of doubles, so that the same run always prints the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace pmixflow {

std::string json_quote(std::string_view s);
void json_quote_into(std::string& out, std::string_view s);
std::string json_number(double v);
void json_number_into(std::string& out, double v);

}  // namespace pmixflow
