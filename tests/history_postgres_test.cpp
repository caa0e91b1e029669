// The history in a real PostgreSQL server, started by the test (Debian's postgresql: initdb and
// pg_ctl under a temporary folder, as nobody when we are root, a Unix socket only): the planted
// series through the real command, and writers at once. Skips with the reason where there is no
// server to start.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"
#include "history/history_database.hpp"
#include "tests/history_planted.hpp"

namespace fs = std::filesystem;

namespace pipecheck {
namespace {

const std::string kPipecheck = std::string(PIPECHECK_BIN_DIR) + "/pipecheck";

fs::path postgres_bin() {
  for (const char* dir : {"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"}) {
    if (fs::exists(fs::path(dir) / "initdb")) return dir;
  }
  return {};
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

class PostgresServer {
 public:
  PostgresServer() {
    const fs::path bin = postgres_bin();
    if (bin.empty()) {
      skip_ = "no PostgreSQL server installed (apt-get install postgresql)";
      return;
    }
    dir_ = fs::temp_directory_path() / ("pipecheck-pg-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::string as_user;
    if (geteuid() == 0) {
      // initdb refuses root: the server is nobody's, in a folder nobody owns.
      if (chown(dir_.c_str(), 65534, 65534) != 0) {
        skip_ = "cannot hand " + dir_.string() + " to nobody";
        return;
      }
      as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    }
    port_ = 20000 + static_cast<int>(getpid() % 20000);
    const std::string data = (dir_ / "data").string();
    const std::string init = as_user + quoted((bin / "initdb").string()) + " -D " + quoted(data) +
                             " -A trust -U pipecheck --no-sync > " + quoted((dir_ / "initdb.log").string()) + " 2>&1";
    if (std::system(init.c_str()) != 0) {
      skip_ = "initdb failed: " + read_log("initdb.log");
      return;
    }
    const std::string start = as_user + quoted((bin / "pg_ctl").string()) + " -D " + quoted(data) + " -l " +
                              quoted((dir_ / "server.log").string()) + " -w -t 60 -o " +
                              quoted("-k " + dir_.string() + " -p " + std::to_string(port_) +
                                     " -c listen_addresses= -c fsync=off") +
                              " start > /dev/null 2>&1";
    if (std::system(start.c_str()) != 0) {
      skip_ = "the server did not start: " + read_log("server.log");
      return;
    }
    stop_ = as_user + quoted((bin / "pg_ctl").string()) + " -D " + quoted(data) + " -m immediate stop > /dev/null 2>&1";
    url_ = "postgresql:///postgres?host=" + dir_.string() + "&port=" + std::to_string(port_) + "&user=pipecheck";
  }
  ~PostgresServer() {
    if (!stop_.empty()) std::system(stop_.c_str());
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  const std::string& skip() const { return skip_; }
  const std::string& url() const { return url_; }
  // A fresh database of its own for one test.
  std::string database(const std::string& name) {
    const auto db = open_postgres_history(url_);
    db->execute("CREATE DATABASE " + name);
    return "postgresql:///" + name + "?host=" + dir_.string() + "&port=" + std::to_string(port_) + "&user=pipecheck";
  }

 private:
  std::string read_log(const std::string& name) {
    try {
      std::string text = read_file(dir_ / name);
      return text.size() > 400 ? text.substr(text.size() - 400) : text;
    } catch (const std::exception&) {
      return "(no log)";
    }
  }
  fs::path dir_;
  int port_ = 0;
  std::string url_, stop_, skip_;
};

PostgresServer* server = nullptr;

class HistoryPostgres : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server = new PostgresServer(); }
  static void TearDownTestSuite() {
    delete server;
    server = nullptr;
  }
  void SetUp() override {
    if (!server->skip().empty()) GTEST_SKIP() << server->skip();
  }
};

ProcessResult run_pipecheck(const std::vector<std::string>& args, const fs::path& scratch, std::string& out,
                            std::string& err) {
  ProcessSpec spec;
  spec.argv = {kPipecheck};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = scratch / "out.txt";
  spec.stderr_path = scratch / "err.txt";
  spec.time_limit = std::chrono::minutes(2);
  const ProcessResult r = run_process(spec);
  out = read_file(spec.stdout_path);
  err = read_file(spec.stderr_path);
  return r;
}

TEST_F(HistoryPostgres, PlantedSeriesAreFlaggedExactlyWithTheirStart) {
  const std::string url = server->database("planted");
  const fs::path scratch = fs::temp_directory_path() / ("pipecheck-pg-runs-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  test::write_planted_runs(scratch / "runs");
  std::string out, err;
  const ProcessResult r =
      run_pipecheck({"history", "--history", url, "--import", (scratch / "runs").string(), "--json"}, scratch, out, err);
  ASSERT_EQ(r.exit_code, 1) << err;
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc.at("runs").size(), static_cast<std::size_t>(test::kPlantedRuns));
  EXPECT_EQ(doc.at("schema_version"), 1);
  EXPECT_EQ(doc.at("store").get<std::string>().rfind("postgresql://", 0), 0u);
  std::size_t steps = 0, slides = 0, links = 0;
  for (const auto& d : doc.at("drifts")) {
    const std::string kind = d.at("kind");
    if (kind == "step") {
      ++steps;
      EXPECT_EQ(d.at("key"), "memory/step/gpu0");
      EXPECT_EQ(d.at("start_index"), test::kStepAt);
      EXPECT_EQ(d.at("started_utc"), test::planted_time(test::kStepAt));
    } else if (kind == "slide") {
      ++slides;
      EXPECT_EQ(d.at("key"), "hostmem/slide/threads:1");
      EXPECT_NEAR(d.at("start_index").get<int>(), test::kSlideAt, 3);
    } else if (kind == "link") {
      ++links;
      EXPECT_EQ(d.at("runs_below_max"), static_cast<int>(test::kLinkLowRuns.size()));
    }
  }
  EXPECT_EQ(doc.at("drifts").size(), 3u) << doc.at("drifts").dump(1);
  EXPECT_EQ(steps + slides + links, 3u);
  std::error_code ec;
  fs::remove_all(scratch, ec);
}

TEST_F(HistoryPostgres, WritersAtOnceAllLand) {
  const std::string url = server->database("concurrent");
  const fs::path scratch = fs::temp_directory_path() / ("pipecheck-pg-conc-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  test::write_planted_runs(scratch / "a", 0, 25);
  test::write_planted_runs(scratch / "b", 25, test::kPlantedRuns);
  // Two writers for each half, all four at once, on a store without a schema yet.
  std::vector<std::thread> writers;
  std::vector<int> codes(4, -1);
  for (int i = 0; i < 4; ++i) {
    writers.emplace_back([&, i] {
      const fs::path mine = scratch / ("w" + std::to_string(i));
      fs::create_directories(mine);
      std::string out, err;
      codes[static_cast<std::size_t>(i)] =
          run_pipecheck({"history", "--history", url, "--import", (scratch / (i % 2 == 0 ? "a" : "b")).string(), "--json"},
                        mine, out, err)
              .exit_code;
    });
  }
  for (auto& w : writers) w.join();
  for (const int code : codes) EXPECT_TRUE(code == 0 || code == 1) << code;
  const auto db = open_postgres_history(url);
  EXPECT_EQ(db->query("SELECT COUNT(*) FROM runs")[0][0].value_or(""), std::to_string(test::kPlantedRuns));
  EXPECT_EQ(db->query("SELECT COUNT(*) FROM measurements")[0][0].value_or(""), std::to_string(test::kPlantedRuns * 4));
  EXPECT_EQ(db->query("SELECT COUNT(*) FROM schema_version")[0][0].value_or(""), "1");
  std::error_code ec;
  fs::remove_all(scratch, ec);
}

}  // namespace
}  // namespace pipecheck
