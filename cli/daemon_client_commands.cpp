// perfsage daemon status | runs | show RUN | submit PATH: the CLI as a client of perfsaged.
#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "app/front_end_names.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/daemon_client.h"
#include "cli/output.h"
#include "cli/render_text.h"
#include "perfsage/v1/api.pb.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace v1 = perfsage::v1;
namespace {

void endpoint_options(po::options_description& opts, EndpointFlags& f, std::string& format,
                      const char* formats) {
  opts.add_options()("help,h", "show this help")("url", po::value(&f.url),
                                                 "perfsaged's address (default: $PERFSAGE_URL, "
                                                 "the config's daemon.listen, 127.0.0.1:7737)")(
      "token", po::value(&f.token), "bearer token (default: $PERFSAGE_TOKEN)")(
      "token-file", po::value(&f.token_file), "read the bearer token from this file")(
      "config", po::value(&f.config), "read daemon.listen and the token from this config")(
      "format", po::value(&format), formats);
}

std::string query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    out += (out.empty() ? "?" : "&") + k + "=" + url_encode(v);
  }
  return out;
}

int failed(const ApiReply& r, std::ostream& err) {
  err << "perfsage: " << r.error << "\n";
  return r.status == 0 || r.status >= 500 ? kExitInput : r.status == 404 ? kExitInput : kExitUsage;
}

std::string us_text(double us) {
  if (us >= 1e6) return fmt::format("{:.2f} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.2f} ms", us / 1e3);
  return us > 0 ? fmt::format("{:.1f} us", us) : "-";
}

std::string severities(const google::protobuf::Map<std::string, int64_t>& by) {
  std::string out;
  for (const char* s : {"critical", "high", "medium", "low", "info"}) {
    auto it = by.find(s);
    if (it == by.end() || it->second == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + s;
  }
  return out.empty() ? "-" : out;
}

int status_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage daemon status [options]\n\nShows what perfsaged is doing.");
  EndpointFlags f;
  std::string format = "text";
  endpoint_options(opts, f, format, "text | json");
  po::variables_map vm;
  if (auto stop = parse_command_line("daemon status", args, opts, {}, vm, out, err)) return *stop;
  auto ep = resolve_endpoint(f, err);
  if (!ep) return kExitUsage;
  auto r = api_get(*ep, "/api/v1/status");
  if (r.status != 200) return failed(r, err);
  if (format == "json") return write_output("", r.body + "\n", out, err) ? kExitOk : kExitInput;
  v1::DaemonStatus s;
  std::string why;
  if (!parse_reply(r, s, why)) {
    err << "perfsage: " << why << "\n";
    return kExitInput;
  }
  out << "perfsaged " << s.version() << " at " << ep->url << ": "
      << (s.ready() ? "ready" : "NOT READY") << ", up " << fmt::format("{:.0f}", s.uptime_s())
      << " s\n";
  out << "  store " << s.store() << "\n";
  for (const auto& w : s.watching()) out << "  watching " << w << "\n";
  out << "  workers " << s.busy() << "/" << s.workers() << " busy; runs being written "
      << s.pending_runs() << "\n  jobs:";
  for (const char* st : {"queued", "running", "done", "failed", "quarantined"}) {
    auto it = s.jobs().find(st);
    out << " " << st << " " << (it == s.jobs().end() ? 0 : it->second);
  }
  const auto& rl = s.last_reload();
  out << "\n  knowledge generation " << s.knowledge_generation() << ", "
      << app::count_text(s.packs(), "pack") << "; last load " << rl.time() << " (" << rl.trigger()
      << "): " << (rl.ok() ? "ok" : "FAILED: " + rl.error()) << "\n";
  return kExitOk;
}

int runs_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage runs [options]\n\nLists the runs perfsaged analysed.");
  EndpointFlags f;
  std::string format = "text", job, status, since, until, page;
  int limit = 50;
  endpoint_options(opts, f, format, "text | json");
  opts.add_options()("job", po::value(&job), "only this job's runs")("status", po::value(&status),
                                                                     "only runs with this status")(
      "since", po::value(&since), "created at or after (ISO-8601, e.g. 2026-01-31)")(
      "until", po::value(&until), "created at or before")(
      "limit", po::value(&limit), "at most this many (newest first; 1..500)")(
      "page-token", po::value(&page), "continue after the previous page");
  po::variables_map vm;
  if (auto stop = parse_command_line("runs", args, opts, {}, vm, out, err)) return *stop;
  auto ep = resolve_endpoint(f, err);
  if (!ep) return kExitUsage;
  auto r = api_get(*ep, "/api/v1/runs" + query({{"job", job},
                                                {"status", status},
                                                {"since", since},
                                                {"until", until},
                                                {"limit", std::to_string(limit)},
                                                {"page_token", page}}));
  if (r.status != 200) return failed(r, err);
  if (format == "json") return write_output("", r.body + "\n", out, err) ? kExitOk : kExitInput;
  v1::RunList list;
  std::string why;
  if (!parse_reply(r, list, why)) {
    err << "perfsage: " << why << "\n";
    return kExitInput;
  }
  out << fmt::format("{:>6}  {:<24} {:<20} {:>10}  {}\n", "run", "job", "created", "step",
                     "findings");
  for (const auto& run : list.runs()) {
    out << fmt::format("{:>6}  {:<24} {:<20} {:>10}  {}\n", run.id(), run.job(), run.created(),
                       us_text(run.step_time_us()), severities(run.findings_by_severity()));
  }
  if (!list.next_page_token().empty()) {
    out << "(more: --page-token " << list.next_page_token() << ")\n";
  }
  return kExitOk;
}

int show_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage show RUN [options]\n\nPrints one run's report as perfsaged stored it.");
  EndpointFlags f;
  std::string format = "text", output, run;
  endpoint_options(opts, f, format, "text | json | html (one self-contained file)");
  opts.add_options()("output,o", po::value(&output), "write to this file instead of stdout")(
      "run", po::value(&run), "the run id");
  po::positional_options_description pos;
  pos.add("run", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("show", args, opts, pos, vm, out, err, [&] {
        if (run.empty() || run.find_first_not_of("0123456789") != std::string::npos)
          throw po::error("give the run's id, e.g. perfsage show 12");
        if (format != "text" && format != "json" && format != "html")
          throw po::error("--format must be text, json or html");
      }))
    return *stop;
  auto ep = resolve_endpoint(f, err);
  if (!ep) return kExitUsage;
  auto r = api_get(*ep, "/api/v1/runs/" + run + (format == "html" ? "/report.html" : ""));
  if (r.status != 200) return failed(r, err);
  std::string text = r.body;
  if (format == "text") {
    v1::RunDetail detail;
    std::string why;
    if (!parse_reply(r, detail, why)) {
      err << "perfsage: " << why << "\n";
      return kExitInput;
    }
    text = render_text(detail.report());
  } else if (format == "json") {
    text += "\n";
  }
  return write_output(output, text, out, err) ? kExitOk : kExitInput;
}

int submit_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage submit PATH [options]\n\nQueues a file or folder for analysis by perfsaged.\n"
      "With --wait: exit 0 once analysed, 1 when the job failed or was quarantined.");
  EndpointFlags f;
  std::string format = "text", path, job;
  double timeout_s = 600;
  endpoint_options(opts, f, format, "text | json");
  opts.add_options()("job", po::value(&job), "job name (default: from the daemon's watch layout)")(
      "lenient", "skip malformed records instead of failing")(
      "wait", "wait until the job has ended")("timeout", po::value(&timeout_s),
                                              "with --wait: give up after this many seconds")(
      "path", po::value(&path), "the file or folder");
  po::positional_options_description pos;
  pos.add("path", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("submit", args, opts, pos, vm, out, err, [&] {
        if (path.empty()) throw po::error("give the file or folder to analyse");
      }))
    return *stop;
  auto ep = resolve_endpoint(f, err);
  if (!ep) return kExitUsage;
  v1::SubmitRequest req;
  req.set_path(std::filesystem::absolute(path).lexically_normal().string());
  req.set_job(job);
  req.set_lenient(vm.count("lenient") > 0);
  std::string body;
  (void)google::protobuf::util::MessageToJsonString(req, &body);
  auto r = api_post(*ep, "/api/v1/submit", body);
  if (r.status != 200 && r.status != 201) return failed(r, err);
  v1::SubmitResponse sub;
  std::string why;
  if (!parse_reply(r, sub, why)) {
    err << "perfsage: " << why << "\n";
    return kExitInput;
  }
  v1::QueueJob job_state = sub.job();
  if (!sub.added()) err << "perfsage: already queued as job " << job_state.id() << "\n";
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  bool ended = false;
  while (vm.count("wait")) {
    ended = job_state.state() == "done" || job_state.state() == "failed" ||
            job_state.state() == "quarantined";
    if (ended || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto q = api_get(*ep, "/api/v1/queue/" + std::to_string(job_state.id()));
    if (q.status != 200) return failed(q, err);
    if (!parse_reply(q, job_state, why)) {
      err << "perfsage: " << why << "\n";
      return kExitInput;
    }
  }
  if (format == "json") {
    std::string text;
    google::protobuf::util::JsonPrintOptions o;
    o.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(job_state, &text, o);
    out << text << "\n";
  } else {
    out << "job " << job_state.id() << " (" << job_state.job() << "): " << job_state.state();
    if (job_state.run_id()) out << ", run " << job_state.run_id();
    if (!job_state.reason().empty()) out << " — " << job_state.reason();
    out << "\n";
  }
  if (vm.count("wait") && !ended) {
    err << "perfsage: job " << job_state.id() << " still " << job_state.state() << " after "
        << timeout_s << " s\n";
    return kExitInput;
  }
  return job_state.state() == "failed" || job_state.state() == "quarantined" ? kExitInput : kExitOk;
}

}  // namespace

std::vector<std::string> daemon_subcommands() {
  return {"status"};
}

int run_daemon(const Args& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && args[0] == "status")
    return status_command({args.begin() + 1, args.end()}, out, err);
  err << "usage: perfsage daemon status [--url URL] [--token TOKEN]\n";
  return args.size() == 1 && (args[0] == "--help" || args[0] == "-h") ? kExitOk : kExitUsage;
}

int run_runs(const Args& args, std::ostream& out, std::ostream& err) {
  return runs_command(args, out, err);
}

int run_show(const Args& args, std::ostream& out, std::ostream& err) {
  return show_command(args, out, err);
}

int run_submit(const Args& args, std::ostream& out, std::ostream& err) {
  return submit_command(args, out, err);
}

}  // namespace perfsage::cli
