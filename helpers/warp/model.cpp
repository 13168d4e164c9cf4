// The course's warp model: an Oclgrind plugin that counts, for each kernel launch, what a GPU's
// warps would do with the kernel's memory accesses and branches (docs/warp-model.md).
//
// A warp is COURSE_WARP_SIZE (32) consecutive linear local IDs of a work-group. Oclgrind runs a
// work-group's work-items one after another between barriers, so the lanes of a warp are matched
// afterwards: the k-th execution of an instruction by each lane of a warp is one warp-level
// request (or one warp branch). Matching happens at each barrier and at the work-group's end.
//
//   global and constant memory: requests, 32-byte sectors touched (and the fewest possible);
//   local memory: requests, wavefronts (the bank-conflict degree: the largest number of distinct
//     COURSE_WARP_BANK_BYTES-byte words that fall in one of COURSE_WARP_BANKS banks; lanes that
//     read the same word are one broadcast);
//   private memory: requests and lane accesses (what a GPU keeps in its "local" spill memory);
//   conditional branches executed by warps, and those whose lanes took different successors.
//
// The counters of each launch go as one JSON line to the file COURSE_WARP_OUT (appended).
//
// Built against the headers the pip wheel of Oclgrind ships (helpers/warp/build.py): no LLVM
// headers. LLVM's instructions and basic blocks stay opaque pointers; the few LLVM functions used
// are ones the library exports whose arguments and results are plain pointers and numbers (so the
// plugin works whatever C++ standard library built it: libstdc++'s or zig's libc++).

#include "Plugin.h"
#include "Context.h"
#include "KernelInvocation.h"
#include "WorkGroup.h"
#include "WorkItem.h"
#include "Memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace oclgrind;

// --- LLVM, through what liboclgrind exports -----------------------------------------------------
extern "C" void* LLVMInstructionGetDebugLoc(void* instruction);
extern "C" unsigned LLVMDILocationGetLine(void* location);
extern "C" unsigned LLVMDILocationGetColumn(void* location);
struct NameRef  // llvm::StringRef's layout: a pointer and a length, returned in registers
{
  const char* data;
  size_t size;
};
extern NameRef llvm_value_name(const void* value) __asm__("_ZNK4llvm5Value7getNameEv");
extern const void* llvm_instruction_function(const void* instruction) __asm__(
  "_ZNK4llvm11Instruction11getFunctionEv");
extern unsigned llvm_num_successors(const void* terminator) __asm__(
  "_ZNK4llvm11Instruction16getNumSuccessorsEv");
extern const char* llvm_opcode_name(unsigned opcode) __asm__(
  "_ZN4llvm11Instruction13getOpcodeNameEj");

namespace
{
// llvm::Value keeps its kind (SubclassID) in the byte after two pointers; an instruction's kind is
// a fixed base plus its opcode. The base is found from the instruction whose opcode is certain:
// the ret every work-item ends at (see calibrate()). A memory callback's instruction is not
// certain: a load or store, but a call where a builtin (vload4, vstore4) does the access.
unsigned value_id(const void* value)
{
  return reinterpret_cast<const unsigned char*>(value)[2 * sizeof(void*)];
}

unsigned opcode_of(const char* name)
{
  for (unsigned op = 1; op < 128; op++)
    if (!strcmp(llvm_opcode_name(op), name))
      return op;
  return 0;
}

unsigned env_number(const char* name, unsigned fallback)
{
  const char* text = getenv(name);
  if (!text || !*text)
    return fallback;
  long value = strtol(text, nullptr, 10);
  return value > 0 ? static_cast<unsigned>(value) : fallback;
}

enum Kind : unsigned
{
  // memory: address space (0 private, 1 global, 2 constant, 3 local) * 4 + operation
  LOAD = 0,
  STORE = 1,
  ATOMIC = 2,
  BRANCH = 16,  // a block left for another: the instruction is a terminator
};

struct Slot
{
  uint64_t where;  // an address, or the block a branch went to
  uint32_t size;
  uint32_t used;
};

// One instruction (of one kind) in the running work-group: each lane's occurrences so far, and
// for each occurrence k what each lane did.
struct Site
{
  std::vector<uint32_t> count;
  std::vector<std::vector<Slot>> at;
};

struct Totals
{
  uint64_t requests = 0;   // warp-level requests (branches executed by warps)
  uint64_t units = 0;      // sectors, wavefronts, lane accesses (distinct successors)
  uint64_t ideal = 0;      // the fewest sectors or wavefronts the same bytes could take
  uint64_t lanes = 0;      // lane accesses (lanes that took the branch)
  uint64_t divergent = 0;  // branches whose lanes went different ways
  void add(const Totals& o)
  {
    requests += o.requests;
    units += o.units;
    ideal += o.ideal;
    lanes += o.lanes;
    divergent += o.divergent;
  }
};

typedef std::unordered_map<uint64_t, Totals> SiteTotals;  // key: instruction | kind << 56

uint64_t key_of(const void* instruction, unsigned kind)
{
  return reinterpret_cast<uint64_t>(instruction) | (static_cast<uint64_t>(kind) << 56);
}
const void* instruction_of(uint64_t key)
{
  return reinterpret_cast<const void*>(key & ((1ull << 56) - 1));
}
unsigned kind_of(uint64_t key)
{
  return static_cast<unsigned>(key >> 56);
}

struct Lane
{
  const void* block = nullptr;
  const void* last = nullptr;  // the instruction it executed last
};

// What one worker thread holds of the work-group it runs.
struct Group
{
  size_t size = 0, lx = 1, ly = 1;
  std::vector<Lane> lanes;
  std::unordered_map<uint64_t, Site> sites;
  const WorkItem* item = nullptr;
  size_t lane = 0;
  const void* anyInstruction = nullptr;
  const void* ret = nullptr;  // the ret its work-items ended at (see calibrate)
  std::unordered_map<const void*, unsigned> seen;  // instruction -> opcode hints (see calibrate)
};

thread_local Group group;

class WarpModel : public Plugin
{
public:
  explicit WarpModel(const Context* context)
    : Plugin(context), m_warp(env_number("COURSE_WARP_SIZE", 32)),
      m_banks(env_number("COURSE_WARP_BANKS", 32)),
      m_bankBytes(env_number("COURSE_WARP_BANK_BYTES", 4)),
      m_sectorBytes(env_number("COURSE_WARP_SECTOR_BYTES", 32)), m_base(-1)
  {
    const char* out = getenv("COURSE_WARP_OUT");
    m_out = out ? out : "";
    m_opLoad = opcode_of("load");
    m_opStore = opcode_of("store");
    m_opRet = opcode_of("ret");
    m_opBr = opcode_of("br");
    m_opSwitch = opcode_of("switch");
  }

  bool isThreadSafe() const override { return true; }

  void kernelBegin(const KernelInvocation* invocation) override
  {
    std::lock_guard<std::mutex> lock(m_lock);
    m_totals.clear();
    m_hints.clear();
    m_rets.clear();
    m_function = nullptr;
    m_groups = 0;
    m_global = invocation->getGlobalSize();
    m_local = invocation->getLocalSize();
  }

  void workGroupBegin(const WorkGroup* workGroup) override
  {
    Size3 size = workGroup->getGroupSize();
    group.lx = size.x;
    group.ly = size.y;
    group.size = size.x * size.y * size.z;
    group.lanes.assign(group.size, Lane());
    group.sites.clear();
    group.item = nullptr;
    group.anyInstruction = nullptr;
  }

  void workGroupBarrier(const WorkGroup* workGroup, uint32_t flags) override
  {
    flush(false);  // every work-item has reached it: what came before is complete
  }

  void workGroupComplete(const WorkGroup* workGroup) override { flush(true); }

  void workItemComplete(const WorkItem* workItem) override
  {
    Lane& l = group.lanes[lane(workItem)];
    if (l.last)
      group.ret = l.last;  // a work-item ends at a ret
  }

  void instructionExecuted(const WorkItem* workItem, const llvm::Instruction* instruction,
                           const TypedValue& result) override
  {
    size_t i = lane(workItem);
    Lane& l = group.lanes[i];
    const void* block = workItem->getCurrentBlock();
    if (block != l.block)
    {
      if (l.last)  // it left l.block for this one: the last instruction was its terminator
        record(i, key_of(l.last, BRANCH), reinterpret_cast<uint64_t>(block), 0);
      l.block = block;
    }
    l.last = instruction;
    if (!group.anyInstruction)
      group.anyInstruction = instruction;
  }

  void memoryLoad(const Memory* memory, const WorkItem* workItem, size_t address,
                  size_t size) override
  {
    access(memory, workItem, LOAD, address, size);
  }
  void memoryStore(const Memory* memory, const WorkItem* workItem, size_t address, size_t size,
                   const uint8_t* storeData) override
  {
    access(memory, workItem, STORE, address, size);
  }
  void memoryAtomicLoad(const Memory* memory, const WorkItem* workItem, AtomicOp op,
                        size_t address, size_t size) override
  {
    access(memory, workItem, ATOMIC, address, size);
  }

  void kernelEnd(const KernelInvocation* invocation) override
  {
    std::lock_guard<std::mutex> lock(m_lock);
    calibrate();
    if (!m_out.empty())
      write();
  }

private:
  const unsigned m_warp, m_banks, m_bankBytes, m_sectorBytes;
  long m_base;  // value id of opcode 0; -1 while unknown
  unsigned m_opLoad, m_opStore, m_opRet, m_opBr, m_opSwitch;
  std::string m_out;
  std::mutex m_lock;
  SiteTotals m_totals;
  std::unordered_map<const void*, unsigned> m_hints;
  std::unordered_set<const void*> m_rets;
  const void* m_function = nullptr;
  size_t m_groups = 0;
  Size3 m_global, m_local;

  size_t lane(const WorkItem* workItem)
  {
    if (workItem != group.item)
    {
      Size3 id = workItem->getLocalID();
      group.item = workItem;
      group.lane = id.x + group.lx * (id.y + group.ly * id.z);
    }
    return group.lane;
  }

  void hint(const void* instruction, unsigned opcode)
  {
    if (group.seen.size() < 64)
      group.seen.emplace(instruction, opcode);
  }

  void access(const Memory* memory, const WorkItem* workItem, unsigned op, size_t address,
              size_t size)
  {
    unsigned space = memory->getAddressSpace();
    const void* instruction = workItem->getCurrentInstruction();
    if (op != ATOMIC)
      hint(instruction, op == LOAD ? m_opLoad : m_opStore);
    record(lane(workItem), key_of(instruction, space * 4 + op), address,
           static_cast<uint32_t>(size));
  }

  void record(size_t i, uint64_t key, uint64_t where, uint32_t size)
  {
    Site& s = group.sites[key];
    if (s.count.empty())
      s.count.assign(group.size, 0);
    uint32_t k = s.count[i]++;
    while (s.at.size() <= k)
      s.at.emplace_back(group.size, Slot{0, 0, 0});
    s.at[k][i] = Slot{where, size, 1};
  }

  // Match the lanes of each warp, occurrence by occurrence; add to the launch's totals.
  void flush(bool end)
  {
    SiteTotals mine;
    std::vector<uint64_t> items;
    for (auto& entry : group.sites)
    {
      Totals& t = mine[entry.first];
      unsigned kind = kind_of(entry.first);
      for (auto& slots : entry.second.at)
        for (size_t first = 0; first < group.size; first += m_warp)
          warp(kind, slots, first, std::min(group.size, first + m_warp), items, t);
      entry.second.at.clear();
    }
    std::lock_guard<std::mutex> lock(m_lock);
    for (auto& entry : mine)
      m_totals[entry.first].add(entry.second);
    for (auto& entry : group.seen)
      m_hints.emplace(entry.first, entry.second);
    group.seen.clear();
    if (group.ret)
      m_rets.insert(group.ret);
    group.ret = nullptr;
    if (!m_function && group.anyInstruction)
      m_function = llvm_instruction_function(group.anyInstruction);
    if (end)
    {
      m_groups++;
      group.sites.clear();
    }
  }

  void warp(unsigned kind, const std::vector<Slot>& slots, size_t first, size_t last,
            std::vector<uint64_t>& items, Totals& t)
  {
    items.clear();
    uint64_t lanes = 0, widest = 0;
    unsigned space = kind / 4;
    for (size_t i = first; i < last; i++)
    {
      const Slot& s = slots[i];
      if (!s.used)
        continue;
      lanes++;
      widest = std::max<uint64_t>(widest, s.size);
      if (kind == BRANCH || space == AddrSpacePrivate)
        items.push_back(s.where);
      else
      {
        uint64_t unit = space == AddrSpaceLocal ? m_bankBytes : m_sectorBytes;
        uint64_t end = s.where + (s.size ? s.size : 1) - 1;
        for (uint64_t u = s.where / unit; u <= end / unit; u++)
          items.push_back(u);
      }
    }
    if (!lanes)
      return;
    t.requests++;
    t.lanes += lanes;
    std::sort(items.begin(), items.end());
    size_t distinct = std::unique(items.begin(), items.end()) - items.begin();
    if (kind == BRANCH)
    {
      t.units += distinct;
      t.divergent += distinct > 1;
    }
    else if (space == AddrSpacePrivate)
    {
      t.units += lanes;
    }
    else if (space == AddrSpaceLocal)
    {
      // the words are sorted: count those of each bank
      std::vector<uint32_t> perBank(m_banks, 0);
      uint32_t degree = 0;
      for (size_t j = 0; j < distinct; j++)
        degree = std::max(degree, ++perBank[items[j] % m_banks]);
      t.units += degree;
      t.ideal += (distinct + m_banks - 1) / m_banks;
    }
    else
    {
      t.units += distinct;
      // the fewest sectors: the lanes' distinct bytes, packed
      t.ideal += std::max<uint64_t>(1, (lanes * widest + m_sectorBytes - 1) / m_sectorBytes);
    }
  }

  // The value id of opcode 0: from the rets work-items ended at, which are certain (each launch,
  // nothing kept from an earlier one); only where no work-item ended (none seen), voted by the
  // memory callbacks' instructions, which a builtin's call can mislead.
  void calibrate()
  {
    m_base = -1;
    std::unordered_map<long, unsigned> votes;
    for (const void* ret : m_rets)
      votes[static_cast<long>(value_id(ret)) - m_opRet]++;
    if (votes.empty())
      for (auto& h : m_hints)
        if (h.second)
          votes[static_cast<long>(value_id(h.first)) - h.second]++;
    unsigned best = 0;
    for (auto& v : votes)
      if (v.second > best && v.first >= 0)
      {
        best = v.second;
        m_base = v.first;
      }
  }

  // A terminator's kind: 2 a conditional branch (or a switch), 1 another terminator, 0 unknown.
  int branch_kind(const void* instruction)
  {
    if (m_base < 0)
      return 0;
    long op = static_cast<long>(value_id(instruction)) - m_base;
    if (op == long(m_opBr) || op == long(m_opSwitch))
      return llvm_num_successors(instruction) > 1 ? 2 : 1;
    return 1;  // a call or a return (functions the compiler did not inline)
  }

  static void line_of(const void* instruction, unsigned& line, unsigned& column)
  {
    void* location = LLVMInstructionGetDebugLoc(const_cast<void*>(instruction));
    line = location ? LLVMDILocationGetLine(location) : 0;
    column = location ? LLVMDILocationGetColumn(location) : 0;
  }

  struct Worst
  {
    const void* instruction = nullptr;
    double value = -1;
    Totals totals;
  };

  void write();
};

const char* SPACE_NAMES[] = {"private", "global", "constant", "local"};
const char* OP_NAMES[] = {"load", "store", "atomic"};

void print_totals(FILE* f, const Totals& t)
{
  fprintf(f,
          "{\"requests\": %llu, \"units\": %llu, \"ideal\": %llu, \"lanes\": %llu, "
          "\"divergent\": %llu}",
          (unsigned long long)t.requests, (unsigned long long)t.units,
          (unsigned long long)t.ideal, (unsigned long long)t.lanes,
          (unsigned long long)t.divergent);
}

void print_name(FILE* f, const char* data, size_t size)
{
  fputc('"', f);
  for (size_t i = 0; i < size; i++)
  {
    unsigned char c = data[i];
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void WarpModel::write()
{
  // totals by kind ("global load", ..., "branch"), and the worst instruction of each
  std::unordered_map<unsigned, Totals> byKind;
  std::unordered_map<unsigned, Worst> worst;
  bool lines = false;
  uint64_t unknownBranches = 0;
  for (auto& entry : m_totals)
  {
    unsigned kind = kind_of(entry.first);
    const void* instruction = instruction_of(entry.first);
    const Totals& t = entry.second;
    if (!t.requests)
      continue;
    if (kind == BRANCH)
    {
      int k = branch_kind(instruction);
      if (k == 1)
        continue;  // an unconditional jump, a call, a return
      if (k == 0)
        unknownBranches += t.requests;
    }
    byKind[kind].add(t);
    double value = kind == BRANCH ? double(t.divergent)
                   : kind / 4 == AddrSpacePrivate ? double(t.units)
                                                   : double(t.units) / double(t.requests);
    Worst& w = worst[kind];
    if (value > w.value || (value == w.value && t.requests > w.totals.requests))
    {
      w.instruction = instruction;
      w.value = value;
      w.totals = t;
    }
  }

  FILE* f = fopen(m_out.c_str(), "a");
  if (!f)
    return;
  fprintf(f, "{\"kernel\": ");
  if (m_function)
  {
    NameRef name = llvm_value_name(m_function);
    print_name(f, name.data, name.size);
  }
  else
    fprintf(f, "null");
  fprintf(f,
          ", \"global_size\": [%zu, %zu, %zu], \"local_size\": [%zu, %zu, %zu], "
          "\"work_groups\": %zu, \"warp_size\": %u, \"banks\": %u, \"bank_bytes\": %u, "
          "\"sector_bytes\": %u, \"branches_classified\": %s, \"unclassified_branches\": %llu",
          m_global.x, m_global.y, m_global.z, m_local.x, m_local.y, m_local.z, m_groups, m_warp,
          m_banks, m_bankBytes, m_sectorBytes, m_base >= 0 ? "true" : "false",
          (unsigned long long)unknownBranches);
  fprintf(f, ", \"counts\": {");
  bool first = true;
  for (auto& entry : byKind)
  {
    unsigned kind = entry.first;
    fprintf(f, "%s\"%s\": ", first ? "" : ", ",
            kind == BRANCH ? "branch"
                           : (std::string(SPACE_NAMES[kind / 4]) + " " + OP_NAMES[kind % 4]).c_str());
    print_totals(f, entry.second);
    first = false;
  }
  fprintf(f, "}, \"worst\": {");
  first = true;
  for (auto& entry : worst)
  {
    unsigned kind = entry.first;
    unsigned line, column;
    line_of(entry.second.instruction, line, column);
    lines = lines || line;
    fprintf(f, "%s\"%s\": {\"line\": %u, \"column\": %u, \"value\": %.4f, \"totals\": ",
            first ? "" : ", ",
            kind == BRANCH ? "branch"
                           : (std::string(SPACE_NAMES[kind / 4]) + " " + OP_NAMES[kind % 4]).c_str(),
            line, column, entry.second.value);
    print_totals(f, entry.second.totals);
    fputc('}', f);
    first = false;
  }
  fprintf(f, "}, \"lines\": %s}\n", lines ? "true" : "false");
  fclose(f);
}
}  // namespace

extern "C"
{
  static WarpModel* course_warp_model = nullptr;

  void initializePlugins(Context* context)
  {
    course_warp_model = new WarpModel(context);
    context->registerPlugin(course_warp_model);
  }

  void releasePlugins(Context* context)
  {
    context->unregisterPlugin(course_warp_model);
    delete course_warp_model;
    course_warp_model = nullptr;
  }
}
