import sys,re,collections,math
rows=collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m=re.match(r"(\w+) ([a-z])(\d+) M=(\d+) k=(\d+) sorted=(\d) ms=([\d.]+) check=(\w+)",line)
    if not m: continue
    ty,v,e,M,k,so,ms,ck=m.groups()
    rows[(ty,M,k,so)][v]=(float(ms),ck)
base=sys.argv[2] if len(sys.argv)>2 else 'h'
vs=None
geo=collections.defaultdict(list)
for key,d in rows.items():
    vs=sorted(d, key=lambda x: (x!=base, x))
    b=d[base]
    cells=[]
    for v in vs:
        ms,ck=d[v]
        r=ms/b[0]
        ok='' if ck==b[1] else ' DIFF'
        cells.append(f"{v}:{ms:.4f}({r:.3f}){ok}")
        geo[(key[0],key[1],key[3],v)].append(r)
    print(key, ' '.join(cells))
for g,l in sorted(geo.items()):
    print(g, f"{math.exp(sum(map(math.log,l))/len(l)):.3f}")
