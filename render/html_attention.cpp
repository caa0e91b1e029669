// report.html's first section after the verdict badge: why the run failed (or is inconclusive),
// one entry a verdict with its figure, its threshold and what to do, so the reader never has to
// scroll to the failing row to learn what failed.
#include <sstream>

#include "render/attention.hpp"
#include "render/html_parts.hpp"

namespace pipecheck::html {

std::string attention_title(const Judged& judged) {
  bool failed = false, inconclusive = false;
  for (const auto& j : judged.judgements) {
    failed = failed || is_failure(j.verdict);
    inconclusive = inconclusive || j.verdict == Verdict::inconclusive;
  }
  return failed ? "Why this failed" : inconclusive ? "Why this is inconclusive" : "";
}

void render_attention(std::ostringstream& out, const Report& report, const Judged& judged) {
  const auto items = attention_items(report, judged);
  if (items.empty()) return;
  const std::string title = attention_title(judged);
  out << "<section id=\"attention\" class=\"attention " << verdict_class(judged.overall) << "\"><h2>" << h(title)
      << "</h2>\n<p class=\"small\">" << items.size() << (items.size() == 1 ? " verdict" : " verdicts")
      << " below the line: <b>fail</b> and <b>invalid</b> fail the run (exit code 1), <b>inconclusive</b> asks for "
         "a rerun on a quiet machine (exit code 4 when nothing failed).</p>\n<ol class=\"attention\">\n";
  for (const auto& item : items) {
    const Judgement& j = *item.judgement;
    out << "<li class=\"" << verdict_class(j.verdict) << "\">" << chip(j.verdict) << " <b>" << h(item.title)
        << "</b>\n<dl class=\"facts\">";
    if (!item.figure.empty()) out << "<dt>measured</dt><dd>" << h(item.figure) << "</dd>";
    out << "<dt>judged</dt><dd>" << h(j.explanation.empty() ? std::string("-") : j.explanation);
    if (!item.threshold.empty()) out << " <code>" << h(item.threshold) << "</code>";
    out << "</dd>";
    if (!item.finding.empty()) out << "<dt>what it means</dt><dd>" << h(item.finding) << "</dd>";
    out << "<dt>what to do</dt><dd>" << h(item.what_to_do) << "</dd></dl>";
    const std::string anchor = item.measurement ? "#stage-" + j.stage : "#checks";
    out << "<div class=\"small\"><a href=\"" << h(anchor) << "\">details</a> &middot; <code>" << h(j.subject)
        << "</code></div></li>\n";
  }
  out << "</ol></section>\n";
}

}  // namespace pipecheck::html
