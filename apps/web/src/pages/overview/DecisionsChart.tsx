import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DayCounts, Outcome } from './overview-data';

/** Colours keep 3:1 against white and each other; the table beside the chart carries the numbers for everyone. */
const COLOURS: Record<Outcome, string> = {
  executed: '#1a7f37',
  completed_with_approval: '#0a58ca',
  in_progress: '#6e7781',
  blocked: '#8a4b00',
  denied: '#b42318',
  expired: '#8250df',
};

/** Recharts is the largest dependency: this file is its own chunk, loaded by the overview only. */
export default function DecisionsChart({ days, outcomes }: { days: DayCounts[]; outcomes: readonly Outcome[] }) {
  const data = days.map(({ day, counts }) => ({ day: day.slice(5), ...counts }));
  return (
    <ResponsiveContainer width="100%" height={260}>
      <BarChart data={data}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="day" />
        <YAxis allowDecimals={false} />
        <Tooltip />
        <Legend />
        {outcomes.map((outcome) => (
          <Bar
            key={outcome}
            dataKey={outcome}
            name={outcome.replaceAll('_', ' ')}
            stackId="decisions"
            fill={COLOURS[outcome]}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
