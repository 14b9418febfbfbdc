/** The decision tree (fig. 4.10), drawn as SVG. */
import { useRef } from 'react';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { layoutTree, round, splitLabel } from '../transforms';
import { fmt } from './common';
import { Figure, svgToPng } from './Figure';

// --- fig. 4.10 --------------------------------------------------------------------------------

const NODE_W = 150;
const NODE_H = 58;
const GAP_X = 14;
const GAP_Y = 56;

export function TreeFigure({ doc }: { doc: AnalysisDoc }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const { nodes, width, depth } = layoutTree(doc.tree.root);
  const W = Math.max(1, width) * (NODE_W + GAP_X) + GAP_X;
  const H = (depth + 1) * (NODE_H + GAP_Y) + 10;
  const pos = new Map(nodes.map((n) => [n.id, { cx: GAP_X + n.x * (NODE_W + GAP_X) + NODE_W / 2, y: 10 + n.depth * (NODE_H + GAP_Y) }]));
  const png = () => (svgRef.current ? svgToPng(svgRef.current) : null);
  const header = ['node', 'depth', 'test_from_parent', 'split', 'n', 'p_acceptable', 'prediction'];
  const rows: Cell[][] = nodes.map((n) => [n.id, n.depth, n.edge, n.node.split ? splitLabel(n.node) : 'leaf', n.node.n, fmt(n.node.p_acceptable), n.node.prediction]);
  const leaves = nodes.filter((n) => n.leaf).length;
  return (
    <Figure
      id="decision-tree"
      reference="Fig. 4.10"
      title="Decision tree: when is the quality acceptable?"
      caption={
        <>
          REPTree-style tree ({doc.tree.method}); {nodes.length} nodes, {leaves} leaves, training accuracy{' '}
          {round((doc.tree.training_accuracy ?? 0) * 100, 1)} %. Green leaves predict acceptable (rating ≥{' '}
          {doc.meta.acceptable_from}); the share is P(acceptable) in the leaf.
        </>
      }
      points={nodes.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-10-decision-tree"
      table={
        <ol className="tree-rules" aria-label="Decision rules">
          {doc.tree.rules.map((r, i) => (
            <li key={i}>{r.text}</li>
          ))}
        </ol>
      }
    >
      <div className="tree-scroll">
        <svg ref={svgRef} className="tree" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Decision tree with ${nodes.length} nodes`}>
          <style>{`text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:11px;fill:#1c2430}.edge{font-size:10px;fill:#5a6472}`}</style>
          {nodes
            .filter((n) => n.parent !== null)
            .map((n) => {
              const from = pos.get(n.parent ?? '');
              const to = pos.get(n.id);
              if (!from || !to) return null;
              const midY = (from.y + NODE_H + to.y) / 2;
              return (
                <g key={`e-${n.id}`}>
                  <path d={`M${from.cx},${from.y + NODE_H} V${midY} H${to.cx} V${to.y}`} fill="none" stroke="#8a939f" />
                  <text className="edge" x={to.cx} y={to.y - 6} textAnchor="middle">
                    {shorten(n.edge ?? '', 28)}
                  </text>
                </g>
              );
            })}
          {nodes.map((n) => {
            const p = pos.get(n.id);
            if (!p) return null;
            const acceptable = n.node.prediction === 'acceptable';
            const fill = n.leaf ? (acceptable ? '#e2f3e7' : '#fbeceb') : '#eef1f5';
            const stroke = n.leaf ? (acceptable ? '#1d5b33' : '#a12a1f') : '#8a939f';
            return (
              <g key={n.id} data-node={n.id}>
                <rect x={p.cx - NODE_W / 2} y={p.y} width={NODE_W} height={NODE_H} rx={6} fill={fill} stroke={stroke} />
                <text x={p.cx} y={p.y + 20} textAnchor="middle" fontWeight={600}>
                  {n.leaf ? (acceptable ? 'acceptable' : 'not acceptable') : shorten(splitLabel(n.node), 24)}
                </text>
                <text x={p.cx} y={p.y + 38} textAnchor="middle">
                  n = {Math.round(n.node.n)}, P(acc.) = {round(n.node.p_acceptable, 2)}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </Figure>
  );
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
