// Numbers for people reading a terminal, not for programs: a replay of a year prints
// `332 d 22 h`, not `2.87638e+07 s`, and a machine of one slot per node does not say `1 slots`.
// The files programs read (summary.json, jobs.csv) keep plain seconds and full precision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmixflow {

// A duration in the units a person uses, two at most, rounded to the smaller one:
// `332 d 22 h`, `1 h 47 min`, `12 min`, `38 s`, `1.2 s`, `350 ms`, `1.27 ms`, `12 µs`.
// Below a second, three significant digits: the flow's latencies are that small.
std::string human_duration(double seconds);

// A count with thousands separators: `27,992`. Every count on the terminal is written so.
std::string grouped(std::uint64_t n);

// A count and its noun, singular for exactly one: `1 slot`, `27,992 jobs`. `plural` is for
// nouns that do not take an s (`process`, `processes`).
std::string counted(std::uint64_t n, std::string_view singular, std::string_view plural = {});

// A measure to `digits` significant digits, without an exponent or trailing zeros, its whole
// part grouped as counts are: `86.4`, `0.684`, `1`, `12,346`.
std::string significant(double value, int digits = 3);

}  // namespace pmixflow
