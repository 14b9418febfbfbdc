/** Every figure of the results explorer, one module per figure or family of figures. */
export { HeatmapFigure } from './HeatmapFigure';
export { CdfFigure, MosOverFactorFigure, MosPerScenarioFigure } from './mosFigures';
export { ThresholdsFigure, WeightsFigure } from './modelFigures';
export { InterRaterFigure, IntraRaterFigure, SosFigure } from './raterFigures';
export { MleQualityFigure } from './MleQualityFigure';
export { RaterBiasFigure } from './RaterBiasFigure';
export { TreeFigure } from './TreeFigure';
export { factorLabel } from '../transforms';
