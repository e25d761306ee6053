# tests/perf/sampler_error.py: relative MSE of the Sobol and the independent sampler against a
# high-spp reference, per scene and sample count (issue 51's table). Not a test: a measurement.
#
#   python3 tests/perf/sampler_error.py [--bin build-cpu/stencilray] [--backend cpu]
#       [--size 96x54] [--ref-spp 4096] [--spp 4,16,64,256] [--seeds 1,2,3]
#       [--scenes cornell_path,showcase,sphere_field] [--out /tmp/sampler_error]
#
# The reference is rendered with the independent sampler (unbiased whichever sampler is
# measured) at --ref-spp with its own seed; each measured error is the mean over --seeds.
# A pixel's relative squared error is the mean over its channels of (x - ref)^2 / (ref^2 + 0.01);
# the table gives their mean over the image ("all"), and their mean with the worst 0.1 % of the
# pixels left out ("trimmed"): a few fireflies (rare caustic paths, which neither sampler
# stratifies) make the first swing by orders of magnitude between seeds. The images are
# Radiance .hdr files (8-bit mantissas: a floor near 1e-6, far below the errors); --reuse
# keeps the ones already in --out.
# On the GPU machine: --backend cuda --ref-spp 65536 --size 192x108.
import argparse, json, os, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def read_hdr(path):
    """The pixels of a Radiance .hdr file (flat or run-length encoded scanlines) as floats."""
    data = open(path, 'rb').read()
    end = data.index(b'\n\n') + 2
    line_end = data.index(b'\n', end)
    dims = data[end:line_end].split()            # -Y height +X width
    height, width = int(dims[1]), int(dims[3])
    pos = line_end + 1
    out = []
    for _ in range(height):
        if width >= 8 and width < 32768 and data[pos] == 2 and data[pos + 1] == 2:
            pos += 4
            chans = []
            for _c in range(4):
                row = []
                while len(row) < width:
                    n = data[pos]; pos += 1
                    if n > 128:
                        row.extend([data[pos]] * (n - 128)); pos += 1
                    else:
                        row.extend(data[pos:pos + n]); pos += n
                chans.append(row)
            quads = zip(*chans)
        else:
            quads = [tuple(data[pos + 4 * i:pos + 4 * i + 4]) for i in range(width)]
            pos += 4 * width
        for r, g, b, e in quads:
            f = 0.0 if e == 0 else 2.0 ** (e - 136)
            out.extend((r * f, g * f, b * f))
    return out


def render(args, scene, spp, sampler, seed, out):
    """Renders scene with the given sampler (a copy of the scene file with "sampler" set)."""
    src = os.path.join(ROOT, 'scenes', scene + '.json')
    doc = json.load(open(src))
    doc['sampler'] = sampler
    if args.reuse and os.path.exists(out):
        return read_hdr(out)
    tmp = os.path.join(ROOT, 'scenes', '.sampler_error_%d_%s.json' % (os.getpid(), scene))
    json.dump(doc, open(tmp, 'w'))   # beside the original: its relative paths still resolve
    w, h = args.size.split('x')
    try:
        subprocess.run([args.bin, 'render', tmp, '--backend', args.backend, '--width', w, '--height', h,
                        '--spp', str(spp), '--seed', str(seed), '-o', out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.remove(tmp)
    return read_hdr(out)


def rel_mse(img, ref, trim=0.0):
    """The mean relative squared error of the pixels, less the worst `trim` fraction of them."""
    e = sorted(sum((img[i + c] - ref[i + c]) ** 2 / (ref[i + c] ** 2 + 0.01) for c in range(3)) / 3.0
               for i in range(0, len(ref), 3))
    keep = len(e) - (int(len(e) * trim + 0.999) if trim > 0.0 else 0)
    return sum(e[:keep]) / keep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default=os.path.join(ROOT, 'build-cpu', 'stencilray'))
    ap.add_argument('--backend', default='cpu')
    ap.add_argument('--size', default='96x54')
    ap.add_argument('--ref-spp', type=int, default=4096)
    ap.add_argument('--spp', default='4,16,64,256')
    ap.add_argument('--seeds', default='1,2,3')
    ap.add_argument('--scenes', default='cornell_path,showcase,sphere_field')
    ap.add_argument('--out', default='/tmp/sampler_error')
    ap.add_argument('--reuse', action='store_true')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    spps = [int(s) for s in args.spp.split(',')]
    seeds = [int(s) for s in args.seeds.split(',')]
    print('| scene | spp | independent, all | sobol, all | ratio | independent, trimmed | sobol, trimmed | ratio |')
    print('|---|---|---|---|---|---|---|---|')
    for scene in args.scenes.split(','):
        ref = render(args, scene, args.ref_spp, 'independent', 1000,
                     os.path.join(args.out, '%s-ref-%d.hdr' % (scene, args.ref_spp)))
        for spp in spps:
            row = []
            for trim in (0.0, 0.001):
                err = {}
                for sampler in ('independent', 'sobol'):
                    errs = [rel_mse(render(args, scene, spp, sampler, seed,
                                           os.path.join(args.out, '%s-%s-%d-%d.hdr' % (scene, sampler, spp, seed))),
                                    ref, trim) for seed in seeds]
                    err[sampler] = sum(errs) / len(errs)
                row.append('%.3e | %.3e | %.2fx' % (err['independent'], err['sobol'], err['independent'] / err['sobol']))
            print('| %s | %d | %s |' % (scene, spp, ' | '.join(row)), flush=True)


if __name__ == '__main__':
    sys.exit(main())
