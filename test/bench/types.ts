export interface BenchResult {
  /** What was measured, e.g. "GET /v1/rfis page of 100 (req/s)". */
  metric: string;
  value: number;
  unit: string;
  /** The same load against a reference measured in the same run (framework ceiling, curl, frame budget...). */
  baseline: number;
  baselineLabel: string;
  note?: string;
}

export interface BenchSuite {
  name: string;
  run(): Promise<BenchResult[]>;
}
