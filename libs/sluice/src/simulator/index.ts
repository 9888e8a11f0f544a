/** The browser-safe part of the library: what the panel runs. */
export {
  ALGORITHMS,
  hasBurst,
  isWindowAlgorithm,
  type AlgorithmName,
} from '../algorithms/algorithm.types.js';
export { traitsOf, type AlgorithmTraits } from '../algorithms/algorithm.traits.js';
export { durationText, waitText } from '../clock/duration.text.js';
export type { PenaltyOptions, PolicyMode } from '../policy/policy.types.js';
export {
  MAX_SIMULATED_REQUESTS,
  requestTimes,
  simulatePolicy,
  type RequestPattern,
  type SimulatedPolicy,
  type SimulatedRequest,
  type SimulationBucket,
  type SimulationResult,
} from './policy.simulator.js';
