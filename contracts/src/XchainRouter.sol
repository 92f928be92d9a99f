// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {XchainOrder} from "./XchainOrder.sol";

/// @title The router: a chain's `deposit_target`, where every step of an order happens.
/// @notice On the source chain it takes the deposit for a quoted order once, keyed by its quote
/// hash, and can return it to the order's refund address once; on the destination chain a filler
/// delivers the order through `fill`, once. One contract per chain, so one watcher reads all of an
/// order's steps on one address. Its configuration, the refunder and the fill window, is immutable
/// (in the code), so its runtime code works wherever it is placed (the local chains copy it to a
/// fixed address with `anvil_setCode`).
contract XchainRouter {
    using SafeERC20 for IERC20;

    /// @notice The whole order, so a filler learns everything it must deliver from the source
    /// chain alone (the role of ERC-7683's Open event). Emitted just before `Deposited`.
    event OrderOpened(bytes32 indexed quoteHash, XchainOrder.Order order);
    event Deposited(bytes32 indexed quoteHash, address indexed depositor, address token, uint256 amount);
    event Filled(
        bytes32 indexed quoteHash, address indexed filler, address recipient, address token, uint256 amount, uint256 gasDrop
    );
    event Refunded(bytes32 indexed quoteHash, address indexed to, address token, uint256 amount);

    error AlreadyDeposited(bytes32 quoteHash);
    error WrongDepositTarget();
    error WrongSourceChain();
    error WrongValue();
    error WrongDestinationChain();
    error AlreadyFilled(bytes32 quoteHash);
    error AlreadyRefunded(bytes32 quoteHash);
    error NotDeposited(bytes32 quoteHash);
    error BelowMinimum(uint256 amount, uint256 minAmountOut);
    error BadRecipient();
    error BadToken();
    error NotRefunder();
    error TransferFailed();
    error FillWindowClosed(uint256 closedAt);
    error RefundTooEarly(uint256 refundableAt);

    /// @notice The operator key allowed to refund. The router cannot see the destination chain:
    /// the refunder must check there that a cross-chain order was not filled before refunding it.
    address public immutable refunder;

    /// @notice Seconds after an order's `expiresAt` during which it may still be filled. A
    /// cross-chain order can be refunded only once that window has closed on its destination, so
    /// no fill can land after its refund: the source waits `REFUND_MARGIN` more, for the clocks of
    /// two chains that never quite agree.
    uint64 public immutable fillWindow;
    uint64 public constant REFUND_MARGIN = 600;

    /// @notice Ever deposited (stays true after a refund, so a refunded hash cannot be deposited again).
    mapping(bytes32 quoteHash => bool) public deposited;
    mapping(bytes32 quoteHash => bool) public filled;
    mapping(bytes32 quoteHash => bool) public refunded;

    constructor(address refunder_, uint64 fillWindow_) {
        refunder = refunder_;
        fillWindow = fillWindow_;
    }

    /// @notice When a cross-chain order may be refunded (a same-chain order: once deposited and not filled).
    function refundableAt(XchainOrder.Order calldata order) public view returns (uint256) {
        return uint256(order.expiresAt) + fillWindow + REFUND_MARGIN;
    }

    /// @notice Deposit for an order from the caller's own funds.
    function deposit(XchainOrder.Order calldata order) external payable {
        _deposit(order, msg.sender);
    }

    /// @notice Deposit for an order from the caller's funds, naming `depositor` as the user it is
    /// for (the gasless executor names the signer). Funds always come from `msg.sender`.
    function depositFor(XchainOrder.Order calldata order, address depositor) external payable {
        _deposit(order, depositor);
    }

    /// @notice What the router takes for an order: `amountIn`, less the relay gas of a gasless
    /// order whose user pays it (the executor has already paid that part to the fee recipient).
    function depositAmount(XchainOrder.Order calldata order) public pure returns (uint256) {
        return order.gasless && !order.sponsorFees ? order.amountIn - order.sponsorGas : order.amountIn;
    }

    /// @notice Deliver an order on its destination chain: `amount` (at least `minAmountOut`) of
    /// `dstToken` and `gasDrop` of the native asset to the recipient, paid by the caller (the
    /// filler), once per quote hash. Native destination: `msg.value == amount + gasDrop`; ERC-20:
    /// `msg.value == gasDrop` and the router pulls `amount` from the caller to the recipient.
    function fill(XchainOrder.Order calldata order, uint256 amount) external payable {
        if (order.dstChainId != block.chainid) revert WrongDestinationChain();
        bytes32 quoteHash = XchainOrder.hash(order);
        if (filled[quoteHash]) revert AlreadyFilled(quoteHash);
        uint256 closesAt = uint256(order.expiresAt) + fillWindow;
        if (block.timestamp > closesAt) revert FillWindowClosed(closesAt);
        if (amount < order.minAmountOut) revert BelowMinimum(amount, order.minAmountOut);
        if (!_isEvmAddress(order.recipient)) revert BadRecipient();
        if (!_isEvmAddress(order.dstToken)) revert BadToken();
        address recipient = address(uint160(uint256(order.recipient)));
        address token = address(uint160(uint256(order.dstToken)));
        // A same-chain order is whole on this router: it fills only what was deposited here and
        // never refunded, which is what lets `refund` rule out a fill for it.
        if (_sameChain(order)) {
            if (!deposited[quoteHash]) revert NotDeposited(quoteHash);
            if (refunded[quoteHash]) revert AlreadyRefunded(quoteHash);
        }
        filled[quoteHash] = true;

        if (token == address(0)) {
            if (msg.value != amount + order.gasDrop) revert WrongValue();
            _sendNative(recipient, amount + order.gasDrop);
        } else {
            if (msg.value != order.gasDrop) revert WrongValue();
            IERC20(token).safeTransferFrom(msg.sender, recipient, amount);
            if (order.gasDrop != 0) _sendNative(recipient, order.gasDrop);
        }
        emit Filled(quoteHash, msg.sender, recipient, token, amount, order.gasDrop);
    }

    /// @notice Return an unfilled order's deposit to its refund address, once; the refunder only.
    /// For a cross-chain order the refunder must have checked the destination chain first.
    function refund(XchainOrder.Order calldata order) external {
        if (msg.sender != refunder) revert NotRefunder();
        _checkSource(order);
        bytes32 quoteHash = XchainOrder.hash(order);
        if (!deposited[quoteHash]) revert NotDeposited(quoteHash);
        if (refunded[quoteHash]) revert AlreadyRefunded(quoteHash);
        if (_sameChain(order)) {
            if (filled[quoteHash]) revert AlreadyFilled(quoteHash);
        } else if (block.timestamp <= refundableAt(order)) {
            // The destination may still take a fill: refunding now could pay the user twice.
            revert RefundTooEarly(refundableAt(order));
        }
        if (!_isEvmAddress(order.refundAddress)) revert BadRecipient();
        address to = address(uint160(uint256(order.refundAddress)));
        refunded[quoteHash] = true;

        uint256 amount = depositAmount(order);
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) _sendNative(to, amount);
        else IERC20(token).safeTransfer(to, amount);
        emit Refunded(quoteHash, to, token, amount);
    }

    function _deposit(XchainOrder.Order calldata order, address depositor) private {
        _checkSource(order);
        bytes32 quoteHash = XchainOrder.hash(order);
        if (deposited[quoteHash]) revert AlreadyDeposited(quoteHash);
        deposited[quoteHash] = true;

        uint256 amount = depositAmount(order);
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) {
            if (msg.value != amount) revert WrongValue();
        } else {
            if (msg.value != 0) revert WrongValue();
            IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        }
        emit OrderOpened(quoteHash, order);
        emit Deposited(quoteHash, depositor, token, amount);
    }

    /// @dev An order quoted for another router or chain would be priced and watched elsewhere.
    function _checkSource(XchainOrder.Order calldata order) private view {
        if (order.depositTarget != bytes32(uint256(uint160(address(this))))) revert WrongDepositTarget();
        if (order.srcChainId != block.chainid) revert WrongSourceChain();
    }

    function _sameChain(XchainOrder.Order calldata order) private view returns (bool) {
        return order.srcChainId == block.chainid && order.dstChainId == block.chainid
            && order.depositTarget == bytes32(uint256(uint160(address(this))));
    }

    /// @dev An EVM address is left-padded to 32 bytes; anything in the high 12 bytes (a Solana key,
    /// a typo) would otherwise be cut silently to some other address.
    function _isEvmAddress(bytes32 value) private pure returns (bool) {
        return uint256(value) >> 160 == 0;
    }

    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}
