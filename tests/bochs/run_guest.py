"""Runs the SHA512-instruction kernel on the Bochs CPU, and its model natively, on the same inputs.

tests/bochs/run.sh builds what this needs and starts it with the preload shim (bochscpu_shim.c):

    run_guest.py GUEST_BIN MODEL_LIB [--seed N]

GUEST_BIN is guest.c built freestanding with the SHA512 instructions and linked at CODE_ADDRESS
(guest.ld); MODEL_LIB is guest.c built natively with the model of the instructions, together with the
portable C kernel. The inputs go into one mailbox (guest.c describes it): padded messages of every
length up to MAX_SWEEP_LEN and random lengths up to MAX_RANDOM_LEN, each at its own alignment and with
the initial value of SHA-384, SHA-512, SHA-512/224 or SHA-512/256 in turn; blocks on random chaining
values; random operands for each of the three instructions. The Bochs CPU runs the guest on it in long
mode (4-level paging, CR4.OSXSAVE, XCR0 = 7); MODEL_LIB's guest_run runs on a copy. Then:

- each digest the guest computed equals hashlib's;
- each chain from random chaining values equals the portable C's;
- every chain and every instruction result of the guest equals the model's.

Prints a line per check and "Bochs sha512ni: N passed, N failed" (tests/test_sha512ni.py reads it);
exits 1 on any failure or if the guest stops before its end (an exception, such as #UD where the
CPU model lacks the instructions, is reported with the CPUID leaf it read).
"""

import argparse
import ctypes
import hashlib
import random
import struct
import sys
import time

import bochscpu
import bochscpu.cpu
import bochscpu.memory

PAGE = 0x1000
PML4_ADDRESS, PDPT_ADDRESS, PD_ADDRESS = 0x1000, 0x2000, 0x3000
CODE_ADDRESS = 0x200000  # guest.ld
MAILBOX_ADDRESS = 0x400000
LARGE_PAGE = 0x200000
MAPPED_BYTES = 32 * LARGE_PAGE  # identity-mapped with 2 MiB pages

MAGIC = 0x3153484342444621  # "!FDBCHS1", little-endian
HEADER_WORDS, JOB_WORDS, CASE_WORDS = 16, 10, 22
CPUID_7_0_EAX, CPUID_7_1_EAX, DONE, FEATURES, KERNEL_FEATURES, AVX512F = 5, 6, 7, 8, 9, 10
CPUID_7_1_EAX_SHA512 = 1 << 0

MAX_SWEEP_LEN = 400  # every length 0..400: one to four blocks, every padding boundary
RANDOM_MESSAGES = 500
MAX_RANDOM_LEN = 30000
RANDOM_CHAIN_JOBS = 60
RANDOM_CASES = 5000

# The initial hash values of FIPS 180-4, sections 5.3.4 (SHA-384), 5.3.5 (SHA-512) and 5.3.6
# (SHA-512/224, SHA-512/256), with each digest's length in bytes.
ALGORITHMS = {
    'sha384': (
        48,
        (0xCBBB9D5DC1059ED8, 0x629A292A367CD507, 0x9159015A3070DD17, 0x152FECD8F70E5939)
        + (0x67332667FFC00B31, 0x8EB44A8768581511, 0xDB0C2E0D64F98FA7, 0x47B5481DBEFA4FA4),
    ),
    'sha512': (
        64,
        (0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1)
        + (0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179),
    ),
    'sha512_224': (
        28,
        (0x8C3D37C819544DA2, 0x73E1996689DCD4D6, 0x1DFAB7AE32FF9C82, 0x679DD514582F9FCF)
        + (0x0F6D2B697BD44DA8, 0x77E36F7304C48942, 0x3F9D85A86A1D36C8, 0x1112E6AD91D692A1),
    ),
    'sha512_256': (
        32,
        (0x22312194FC2BF72C, 0x9F555FA3C84C64C2, 0x2393B86B6F53B151, 0x963877195940EABD)
        + (0x96283EE2A88EFFE3, 0xBE5E1E2553863992, 0x2B0199FC2C85B8AA, 0x0EB72DDC81C52CA2),
    ),
}


def padded(message):
    """MESSAGE with the SHA-512 family's padding (FIPS 180-4, 5.1.2): 0x80, zeros, the bit length in
    128 bits."""
    zeros = (111 - len(message)) % 128
    return message + b'\x80' + bytes(zeros) + (8 * len(message)).to_bytes(16, 'big')


class Mailbox:
    """The inputs as guest.c reads them: jobs (blocks and a chain), then cases (instruction operands)."""

    def __init__(self, rng):
        self.jobs = []  # (kind, name or None, message or None, blocks, alignment, chain)
        self.cases = [[rng.getrandbits(64) for _ in range(10)] for _ in range(RANDOM_CASES)]
        # Lanes of all zeros and all ones besides the random ones (carries, rotations).
        self.cases[:2] = [[0] * 10, [2**64 - 1] * 10]
        names = list(ALGORITHMS)
        lengths = list(range(MAX_SWEEP_LEN + 1)) + [rng.randrange(MAX_RANDOM_LEN + 1) for _ in range(RANDOM_MESSAGES)]
        for index, length in enumerate(lengths):
            # The algorithms in turn, and each of them at every alignment in turn.
            name = names[index % len(names)]
            alignment = index // len(names) % 64
            message = rng.randbytes(length)
            self.jobs.append(('digest', name, message, padded(message), alignment, ALGORITHMS[name][1]))
        for _ in range(RANDOM_CHAIN_JOBS):
            blocks = rng.randbytes(128 * rng.randrange(1, 41))
            chain = tuple(rng.getrandbits(64) for _ in range(8))
            self.jobs.append(('chain', None, None, blocks, rng.randrange(64), chain))

    def encode(self):
        """The mailbox's bytes, laid out from offset 0."""
        jobs_offset = 8 * HEADER_WORDS
        cases_offset = jobs_offset + 8 * JOB_WORDS * len(self.jobs)
        data_offset = cases_offset + 8 * CASE_WORDS * len(self.cases)
        data = bytearray()
        job_words = []
        for _kind, _name, _message, blocks, alignment, chain in self.jobs:
            # Each job's blocks start at its alignment past a multiple of 64.
            while (data_offset + len(data)) % 64 != alignment:
                data.append(0xA5)
            job_words += [data_offset + len(data), len(blocks) // 128, *chain]
            data += blocks
        case_words = [word for case in self.cases for word in case + [0] * 12]
        header = [MAGIC, len(self.jobs), jobs_offset, len(self.cases), cases_offset] + [0] * (HEADER_WORDS - 5)
        words = header + job_words + case_words
        return struct.pack(f'<{len(words)}Q', *words) + bytes(data)


def words_at(mailbox, offset, count):
    return list(struct.unpack_from(f'<{count}Q', mailbox, offset))


def job_chains(mailbox, count):
    jobs_offset = words_at(mailbox, 8 * 2, 1)[0]
    return [tuple(words_at(mailbox, jobs_offset + 8 * (JOB_WORDS * i + 2), 8)) for i in range(count)]


def case_results(mailbox, count):
    cases_offset = words_at(mailbox, 8 * 4, 1)[0]
    return [tuple(words_at(mailbox, cases_offset + 8 * (CASE_WORDS * i + 10), 12)) for i in range(count)]


# ---- the model, natively ---------------------------------------------------------------------------


def run_model(library, mailbox):
    """MODEL_LIB's guest_run on a copy of MAILBOX's bytes; returns the copy."""
    buffer = ctypes.create_string_buffer(bytes(mailbox), len(mailbox))
    library.guest_run(buffer)
    return buffer.raw


def portable_chain(library, chain, blocks):
    words = (ctypes.c_uint64 * 8)(*chain)
    library.fd_sha512_blocks_portable(words, blocks, ctypes.c_size_t(len(blocks) // 128))
    return tuple(words)


# ---- the Bochs CPU -----------------------------------------------------------------------------------


class GuestMemory:
    """Guest physical memory [0, size): one host page per guest page, which bochscpu allocates and maps,
    read and written here directly through their host addresses. Page tables at PML4_ADDRESS map the
    first MAPPED_BYTES one to one with 2 MiB pages (present, writable, user)."""

    def __init__(self, size):
        self.pages = []
        for address in range(0, size, PAGE):
            host = bochscpu.memory.allocate_host_page()
            if not host:
                raise MemoryError('bochscpu could not allocate a host page')
            bochscpu.memory.page_insert(address, host)
            self.pages.append(host)
        present_writable_user, large = 0x7, 0x80
        self.write(PML4_ADDRESS, struct.pack('<Q', PDPT_ADDRESS | present_writable_user))
        self.write(PDPT_ADDRESS, struct.pack('<Q', PD_ADDRESS | present_writable_user))
        entries = [i * LARGE_PAGE | present_writable_user | large for i in range(MAPPED_BYTES // LARGE_PAGE)]
        self.write(PD_ADDRESS, struct.pack(f'<{len(entries)}Q', *entries))

    def pieces(self, address, size):
        """(host address, offset into the data, length) of each page [address, address + size) spans."""
        done = 0
        while done < size:
            page, offset = divmod(address + done, PAGE)
            n = min(size - done, PAGE - offset)
            yield self.pages[page] + offset, done, n
            done += n

    def write(self, address, data):
        data = bytes(data)
        for host, done, n in self.pieces(address, len(data)):
            ctypes.memmove(host, data[done : done + n], n)

    def read(self, address, size):
        return b''.join(ctypes.string_at(host, n) for host, _, n in self.pieces(address, size))

    def release(self):
        for page in self.pages:
            bochscpu.memory.page_remove(self.pages.index(page) * PAGE)
            bochscpu.memory.release_host_page(page)


def long_mode_state():
    """64-bit mode at CPL 0, where the guest's hlt may run (the segments of bochscpu-python's long-mode
    example, at DPL 0), with SSE and AVX state enabled: CR4.OSFXSR, OSXMMEXCPT and OSXSAVE, XCR0 =
    x87 | SSE | AVX."""
    state = bochscpu.State()
    bochscpu.cpu.set_long_mode(state)
    cr4 = bochscpu.cpu.ControlRegister(state.cr4)
    cr4.OSFXSR = True
    cr4.OSXMMEXCPT = True
    cr4.OSXSAVE = True
    state.cr4 = int(cr4)
    state.xcr0 = 0x7
    state.mxcsr = 0x1F80
    state.fpcw = 0x37F
    state.cr3 = PML4_ADDRESS
    state.rflags = 0x2
    code = bochscpu.Segment()
    code.present = True
    code.selector = 0x08
    code.base = 0
    code.limit = 0xFFFF_FFFF
    code.attr = 0x229B  # present, DPL 0, code execute/read, 64-bit
    state.cs = code
    data = bochscpu.Segment()
    data.present = True
    data.selector = 0x10
    data.base = 0
    data.limit = 0xFFFF_FFFF
    data.attr = 0xC93  # present, DPL 0, data read/write, 4 KiB granularity
    state.ds = state.ss = state.es = state.fs = state.gs = data
    return state


def run_bochs(guest, mailbox):
    """The guest on the Bochs CPU with MAILBOX at MAILBOX_ADDRESS; returns the mailbox as the guest
    left it, and the exception that stopped it (None after its hlt)."""
    size = MAILBOX_ADDRESS + len(mailbox)
    if size > MAPPED_BYTES:
        raise ValueError(f'the mailbox ends at {size:#x}, past the mapped {MAPPED_BYTES:#x}')
    if CODE_ADDRESS + len(guest) + 0x20000 > MAILBOX_ADDRESS:
        raise ValueError('the guest image runs into the mailbox')
    session = bochscpu.Session()

    def missing_page(address):
        raise RuntimeError(f'the guest touched unmapped memory at {address:#x}')

    session.missing_page_handler = missing_page
    memory = GuestMemory(-(-size // PAGE) * PAGE)
    memory.write(CODE_ADDRESS, guest)
    memory.write(MAILBOX_ADDRESS, mailbox)
    state = long_mode_state()
    state.rip = CODE_ADDRESS
    state.rdi = MAILBOX_ADDRESS
    session.cpu.state = state
    stopped_by = []

    def on_exception(session, cpu_id, vector, error_code):
        stopped_by.append((vector, error_code, session.cpu.state.rip))
        session.stop()

    def on_hlt(session, cpu_id):
        session.stop()

    hook = bochscpu.Hook()
    hook.exception = on_exception
    hook.hlt = on_hlt
    session.run([hook])
    # What the guest writes: the header, the jobs' chains and the cases' results, before the data.
    tables_len = words_at(mailbox, 8 * 4, 1)[0] + 8 * CASE_WORDS * words_at(mailbox, 8 * 3, 1)[0]
    left = memory.read(MAILBOX_ADDRESS, tables_len)
    memory.release()
    return left, (stopped_by[0] if stopped_by else None)


# ---- the checks --------------------------------------------------------------------------------------


class Tally:
    """Passes and failures by group; the first few failures are printed in full."""

    def __init__(self):
        self.groups = {}

    def check(self, group, ok, message):
        counts = self.groups.setdefault(group, [0, 0])
        counts[0 if ok else 1] += 1
        if not ok and sum(failed for _, failed in self.groups.values()) <= 10:
            print(f'    FAIL [{group}] {message}')

    def report(self):
        for group, (passed, failed) in self.groups.items():
            print(f'[{group}] {passed} passed, {failed} failed')
        passed = sum(counts[0] for counts in self.groups.values())
        failed = sum(counts[1] for counts in self.groups.values())
        print(f'Bochs sha512ni: {passed} passed, {failed} failed')
        return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('guest', help='the flat guest image (guest.c, guest.ld)')
    parser.add_argument('model_library', help='guest.c built natively with the model')
    parser.add_argument('--seed', type=int, default=0x5348413531324E49)
    arguments = parser.parse_args()
    print(f'seed {arguments.seed} (--seed to repeat)')
    rng = random.Random(arguments.seed)
    inputs = Mailbox(rng)
    mailbox = inputs.encode()
    with open(arguments.guest, 'rb') as file:
        guest = file.read()
    library = ctypes.CDLL(arguments.model_library)
    library.guest_run.argtypes = [ctypes.c_char_p]
    library.fd_sha512_blocks_portable.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p, ctypes.c_size_t]
    digest_jobs = sum(kind == 'digest' for kind, *_ in inputs.jobs)
    print(
        f'{digest_jobs} messages of 0 to {max(len(job[2]) for job in inputs.jobs[:digest_jobs])} bytes, '
        f'{len(inputs.jobs) - digest_jobs} runs on random chains, {len(inputs.cases)} instruction cases: '
        f'a mailbox of {len(mailbox)} bytes'
    )

    started = time.perf_counter()
    modelled = run_model(library, mailbox)
    model_seconds = time.perf_counter() - started
    started = time.perf_counter()
    bochs_mailbox, stopped_by = run_bochs(guest, mailbox)
    bochs_seconds = time.perf_counter() - started
    print(f'model {model_seconds:.2f} s, Bochs {bochs_seconds:.2f} s (with its memory set-up)')

    tally = Tally()
    cpuid_7_1 = words_at(bochs_mailbox, 8 * CPUID_7_1_EAX, 1)[0]
    cpuid_7_0 = words_at(bochs_mailbox, 8 * CPUID_7_0_EAX, 1)[0]
    print(f'guest CPUID.(EAX=7,ECX=0):EAX = {cpuid_7_0:#x}, CPUID.(EAX=7,ECX=1):EAX = {cpuid_7_1:#x}')
    tally.check('cpu', cpuid_7_0 >= 1 and cpuid_7_1 & CPUID_7_1_EAX_SHA512, 'the CPU model lacks SHA512')
    # dispatch/features.c on a CPU that has the instructions, with XCR0 = 7: the kernel's features, and
    # no AVX-512, whose register state the OS (the driver) does not save.
    features, kernel_features, avx512f = words_at(bochs_mailbox, 8 * FEATURES, 3)
    print(f'features.c detects {features:#x}; the kernel needs {kernel_features:#x}')
    tally.check('detection', kernel_features and features & kernel_features == kernel_features, 'no kernel')
    tally.check('detection', avx512f and not features & avx512f, 'AVX-512 without its register state')
    if stopped_by is not None:
        vector, error_code, rip = stopped_by
        tally.check('run', False, f'exception {vector} (error code {error_code}) at rip {rip:#x}')
    done = words_at(bochs_mailbox, 8 * DONE, 1)[0] == 1
    tally.check('run', done, 'the guest did not finish')

    if done:
        bochs_chains = job_chains(bochs_mailbox, len(inputs.jobs))
        model_chains = job_chains(modelled, len(inputs.jobs))
        for index, (kind, name, message, blocks, alignment, chain) in enumerate(inputs.jobs):
            got = bochs_chains[index]
            where = f'job {index} ({len(blocks) // 128} blocks at alignment {alignment})'
            if kind == 'digest':
                digest_len = ALGORITHMS[name][0]
                digest = b''.join(word.to_bytes(8, 'big') for word in got)[:digest_len]
                want = hashlib.new(name, message).digest()
                tally.check('vs-hashlib', digest == want, f'{where}: {name} of {len(message)} bytes')
            else:
                tally.check('vs-portable', got == portable_chain(library, chain, blocks), f'{where}: random chain')
            tally.check('model-kernel', got == model_chains[index], f'{where}: the model differs')
        bochs_results = case_results(bochs_mailbox, len(inputs.cases))
        model_results = case_results(modelled, len(inputs.cases))
        for index, (got, modelled_result) in enumerate(zip(bochs_results, model_results, strict=True)):
            for name, lanes in (
                ('vsha512rnds2', slice(0, 4)),
                ('vsha512msg1', slice(4, 8)),
                ('vsha512msg2', slice(8, 12)),
            ):
                tally.check(
                    'model-instructions',
                    got[lanes] == modelled_result[lanes],
                    f'case {index} {name}: Bochs {[hex(x) for x in got[lanes]]}, model {[hex(x) for x in modelled_result[lanes]]}',
                )
    return 1 if tally.report() else 0


if __name__ == '__main__':
    sys.exit(main())
