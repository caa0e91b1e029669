// JUnit XML of one run's verdicts, so CI systems show each as a test: one <testcase> per verdict
// (classname = stage, name = subject), a <testsuite> per stage.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

// fail -> <failure message=explanation>; skipped -> <skipped/>; warn and info pass, with their
// explanation in <system-out>. Counts on <testsuites> and each <testsuite> add up.
std::string render_junit(const Report& report, const Inventory& inventory, const Judged& judged,
                         const RenderExtras& extras);

}  // namespace pipecheck
